package anoncreds

import "testing"

func TestMeets(t *testing.T) {
	rev := "55GkHamhTU1ZbTbV2ab9DE:4:cd:CL_ACCUM:0"
	legacy := &credFacts{
		id:       Identifier{SchemaID: "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0", CredDefID: "55GkHamhTU1ZbTbV2ab9DE:3:CL:12:default", RevRegID: &rev},
		schema:   &Schema{IssuerID: "55GkHamhTU1ZbTbV2ab9DE", Name: "person", Version: "1.0"},
		def:      &CredentialDefinition{IssuerID: "55GkHamhTU1ZbTbV2ab9DE"},
		revealed: map[string]string{"name": "Alice", "favouritecolour": "blue"},
		attrs:    map[string]bool{"name": true, "age": true, "favouritecolour": true},
	}
	web := &credFacts{
		id:     Identifier{SchemaID: "did:web:x.example/s", CredDefID: "did:web:x.example/cd"},
		schema: &Schema{IssuerID: "did:web:x.example", Name: "degree", Version: "2.1"},
		def:    &CredentialDefinition{IssuerID: "did:web:x.example"},
		attrs:  map[string]bool{"degree": true},
	}
	for _, tt := range []struct {
		name string
		c    *credFacts
		r    Restrictions
		want bool
	}{
		{"none", legacy, nil, true},
		{"empty list", legacy, Restrictions{}, true},
		{"schema_id", legacy, Restrictions{{"schema_id": "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"}}, true},
		{"schema_id wrong", legacy, Restrictions{{"schema_id": "x"}}, false},
		{"schema_issuer_did", legacy, Restrictions{{"schema_issuer_did": "55GkHamhTU1ZbTbV2ab9DE"}}, true},
		{"schema_issuer_did did:sov is not the legacy DID", legacy, Restrictions{{"schema_issuer_did": "did:sov:55GkHamhTU1ZbTbV2ab9DE"}}, false},
		{"schema_issuer_did did:web", web, Restrictions{{"schema_issuer_did": "did:web:x.example"}}, true},
		{"schema_issuer_id wrong", web, Restrictions{{"schema_issuer_id": "did:web:y.example"}}, false},
		{"schema_name", legacy, Restrictions{{"schema_name": "person"}}, true},
		{"schema_name wrong", legacy, Restrictions{{"schema_name": "Person"}}, false},
		{"schema_version", legacy, Restrictions{{"schema_version": "1.0"}}, true},
		{"schema_version wrong", legacy, Restrictions{{"schema_version": "1.0.0"}}, false},
		{"issuer_did", legacy, Restrictions{{"issuer_did": "55GkHamhTU1ZbTbV2ab9DE"}}, true},
		{"issuer_id did:web", web, Restrictions{{"issuer_id": "did:web:x.example"}}, true},
		{"issuer_did wrong", web, Restrictions{{"issuer_did": "55GkHamhTU1ZbTbV2ab9DE"}}, false},
		{"cred_def_id", legacy, Restrictions{{"cred_def_id": "55GkHamhTU1ZbTbV2ab9DE:3:CL:12:default"}}, true},
		// identifiers[].rev_reg_id is the prover's word until a
		// non-revocation proof is verified: never met, even when it is
		// the one named (the reference refuses the tag too).
		{"rev_reg_id the credential names", legacy, Restrictions{{"rev_reg_id": rev}}, false},
		{"rev_reg_id or cred_def_id", legacy, Restrictions{{"rev_reg_id": rev}, {"cred_def_id": "55GkHamhTU1ZbTbV2ab9DE:3:CL:12:default"}}, true},
		{"rev_reg_id of a credential without registry", web, Restrictions{{"rev_reg_id": rev}}, false},
		{"value revealed", legacy, Restrictions{{"attr::name::value": "Alice"}}, true},
		{"value revealed, name in other case", legacy, Restrictions{{"attr::Favourite Colour::value": "blue"}}, true},
		{"value differs", legacy, Restrictions{{"attr::name::value": "Bob"}}, false},
		{"value not revealed", legacy, Restrictions{{"attr::age::value": "34"}}, false},
		{"marker", legacy, Restrictions{{"attr::age::marker": "1"}}, true},
		{"marker not 1", legacy, Restrictions{{"attr::age::marker": "0"}}, false},
		{"marker missing", legacy, Restrictions{{"attr::height::marker": "1"}}, false},
		{"unknown tag", legacy, Restrictions{{"colour": "blue"}}, false},
		{"bad attr tag", legacy, Restrictions{{"attr::name::size": "1"}}, false},
		{"and", legacy, Restrictions{{"schema_name": "person", "schema_version": "2.0"}}, false},
		{"or", legacy, Restrictions{{"schema_name": "x"}, {"schema_version": "1.0"}}, true},
	} {
		if got := meets(tt.r, tt.c); got != tt.want {
			t.Errorf("%s: meets = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRestrictionsJSON(t *testing.T) {
	var r struct {
		R Restrictions `json:"restrictions"`
	}
	for in, want := range map[string]int{
		`{"restrictions":[{"schema_name":"a"},{"schema_name":"b"}]}`: 2,
		`{"restrictions":{"schema_name":"a"}}`:                       1,
		`{"restrictions":null}`:                                      0,
		`{}`:                                                         0,
	} {
		r.R = nil
		if err := jsonUnmarshal(in, &r); err != nil || len(r.R) != want {
			t.Errorf("%s: %v %v", in, r.R, err)
		}
	}
	if err := jsonUnmarshal(`{"restrictions":[{"schema_name":1}]}`, &r); err == nil {
		t.Error("a number as restriction value was taken")
	}
}
