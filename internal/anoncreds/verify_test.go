package anoncreds

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/verify"
)

func corpusCaseNamed(t testing.TB, name string) corpusCase {
	t.Helper()
	for _, c := range loadCorpus(t).Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no corpus case %q", name)
	return corpusCase{}
}

func TestUnknownCredentialDefinition(t *testing.T) {
	reg := loadRegistry(t)
	delete(reg.defs, "did:web:issuer.example.com/cred-defs/degree")
	tc := corpusCaseNamed(t, "typical")
	got := (&Verifier{Resolver: reg}).Verify(context.Background(), tc.Request, tc.Presentation)
	if got.Verified || got.Reason != verify.ReasonUnknownCredDef ||
		len(got.Problems) != 1 || got.Problems[0] != "unknown credential definition did:web:issuer.example.com/cred-defs/degree" {
		t.Fatalf("%+v", got)
	}
}

func TestRevocationUnchecked(t *testing.T) {
	reg := loadRegistry(t)
	for _, tt := range []struct {
		name   string
		accept bool
		want   bool
	}{
		// A non-revocation proof is there: its commitments are in the
		// challenge, so nothing can be checked without pairings.
		{"revocation-proof", false, false},
		{"revocation-proof", true, false},
		// No non-revocation proof: refused as the reference refuses it,
		// unless the operator accepts unchecked revocation.
		{"revocation-missing", false, false},
		{"revocation-missing", true, true},
		// Revocation not asked, or the credential cannot be revoked.
		{"revocable-not-asked", false, true},
		{"non-revocable-asked", false, true},
	} {
		tc := corpusCaseNamed(t, tt.name)
		got := (&Verifier{Resolver: reg, AcceptUncheckedRevocation: tt.accept}).Verify(context.Background(), tc.Request, tc.Presentation)
		wantRev := RevocationUnchecked
		if strings.HasPrefix(tt.name, "revoca") && tt.name != "revocable-not-asked" {
			wantRev = RevocationUnchecked
		} else {
			wantRev = RevocationNotRequested
		}
		if got.Verified != tt.want || got.Revocation != wantRev {
			t.Errorf("%s accept=%v: %+v, want verified %v revocation %s", tt.name, tt.accept, got, tt.want, wantRev)
		}
		if got.Revocation == RevocationUnchecked && len(got.Problems) == 0 {
			t.Errorf("%s: unchecked revocation not said", tt.name)
		}
	}
}

func TestMalformedInput(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "typical")
	for name, in := range map[string][2]string{
		"request not JSON":      {"{", string(tc.Presentation)},
		"presentation not JSON": {string(tc.Request), "["},
		"nonce not a number":    {`{"nonce":"x","requested_attributes":{}}`, string(tc.Presentation)},
		"proof missing":         {string(tc.Request), `{"requested_proof":{},"identifiers":[]}`},
		"empty object":          {string(tc.Request), `{}`},
	} {
		got := v.Verify(context.Background(), []byte(in[0]), []byte(in[1]))
		if got.Verified || got.Reason == "" || len(got.Problems) == 0 {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

func TestFormatVerifier(t *testing.T) {
	fv := FormatVerifier{V: &Verifier{Resolver: loadRegistry(t)}}
	if f := fv.Formats(); len(f) != 2 {
		t.Fatal(f)
	}
	good := corpusCaseNamed(t, "typical")
	got, err := fv.Verify(context.Background(), verify.Input{Format: FormatIndyProof, Request: good.Request, Presentation: good.Presentation})
	if err != nil || !got.Verified || got.Reason != "" || len(got.Credentials) != 2 || got.Credentials[0].Signature != verify.OK {
		t.Fatalf("%+v %v", got, err)
	}
	bad := corpusCaseNamed(t, "tamper-proof-e")
	got, err = fv.Verify(context.Background(), verify.Input{Format: FormatAnonCredsProof, Request: bad.Request, Presentation: bad.Presentation})
	if err != nil || got.Verified || got.Reason != verify.ReasonSignature || got.Credentials[1].Signature != verify.Failed || len(got.Detail) > verify.MaxDetail {
		t.Fatalf("%+v %v", got, err)
	}
	raw := corpusCaseNamed(t, "tamper-raw")
	got, _ = fv.Verify(context.Background(), verify.Input{Format: FormatIndyProof, Request: raw.Request, Presentation: raw.Presentation})
	if got.Verified || got.Reason != verify.ReasonEncoding {
		t.Fatalf("%+v", got)
	}
}

// BenchmarkVerifyTypical verifies the typical proof: 2
// credentials, 5 revealed attributes, 1 predicate (corpus case
// "typical"), registry lookups from memory.
func BenchmarkVerifyTypical(b *testing.B) {
	v := &Verifier{Resolver: loadRegistry(b)}
	tc := corpusCaseNamed(b, "typical")
	b.ReportAllocs()
	for b.Loop() {
		if got := v.Verify(context.Background(), tc.Request, tc.Presentation); !got.Verified {
			b.Fatal(got)
		}
	}
}

func TestDeadlineAndWork(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "typical")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := v.Verify(ctx, tc.Request, tc.Presentation); got.Verified || got.Reason != verify.ReasonLimits {
		t.Fatalf("after the deadline: %+v", got)
	}
	// Extra predicate proofs are work the request did not ask for.
	var pres map[string]any
	if err := json.Unmarshal(tc.Presentation, &pres); err != nil {
		t.Fatal(err)
	}
	primary := pres["proof"].(map[string]any)["proofs"].([]any)[0].(map[string]any)["primary_proof"].(map[string]any)
	ge := primary["ge_proofs"].([]any)
	primary["ge_proofs"] = append(ge, ge[0], ge[0])
	more, _ := json.Marshal(pres)
	if got := v.Verify(context.Background(), tc.Request, more); got.Verified || got.Reason != verify.ReasonLimits {
		t.Fatalf("extra predicate proofs: %+v", got)
	}
}

func toMap(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func toJSON(t *testing.T, m map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hasProblem tells whether one of a verdict's problems contains want.
func hasProblem(v Verdict, want string) bool {
	for _, p := range v.Problems {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}

// eqProof is the eq_proof of sub proof i of a presentation (as a map).
func eqProof(pres map[string]any, i int) map[string]any {
	sub := pres["proof"].(map[string]any)["proofs"].([]any)[i].(map[string]any)
	return sub["primary_proof"].(map[string]any)["eq_proof"].(map[string]any)
}

// TestRevocationNeedsProofUnlessAccepted: a revocable credential for a
// request with non_revoked and no non-revocation proof is refused unless
// the operator accepts unchecked revocation (revocation_unchecked accept),
// whether or not the presentation names a timestamp: a timestamp alone
// proves nothing.
func TestRevocationNeedsProofUnlessAccepted(t *testing.T) {
	reg := loadRegistry(t)
	tc := corpusCaseNamed(t, "revocation-missing") // non_revoked {from, to: 1700000000}
	for _, tt := range []struct {
		name      string
		timestamp any // nil: none
		accept    bool
		want      bool
	}{
		{"timestamp in the interval, refuse", 1700000000, false, false},
		{"no timestamp, refuse", nil, false, false},
		{"timestamp in the interval, accept", 1700000000, true, true},
		{"no timestamp, accept", nil, true, true},
		{"timestamp outside the interval, accept", 1600000000, true, false},
	} {
		pres := toMap(t, tc.Presentation)
		pres["identifiers"].([]any)[0].(map[string]any)["timestamp"] = tt.timestamp
		got := (&Verifier{Resolver: reg, AcceptUncheckedRevocation: tt.accept}).Verify(context.Background(), tc.Request, toJSON(t, pres))
		if got.Verified != tt.want || got.Revocation != RevocationUnchecked {
			t.Errorf("%s: %+v, want verified %v, revocation unchecked", tt.name, got, tt.want)
		}
		if !got.Verified && got.Reason != verify.ReasonRevocationUnchecked {
			t.Errorf("%s: reason %q", tt.name, got.Reason)
		}
	}
}

// TestCredDefKeyMustFitSchema: the schema a presentation names must have
// exactly the attributes of the credential definition's key (R, less the
// link secret). A legacy definition names its schema by ledger sequence
// number, so nothing else ties the two: a prover could name a smaller
// schema (to meet a schema restriction) and reveal an attribute it lacks.
// The reference refuses that ("Credential doesn't contain requested
// attribute").
func TestCredDefKeyMustFitSchema(t *testing.T) {
	const (
		cid    = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
		person = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
		staff  = "55GkHamhTU1ZbTbV2ab9DE:2:staff:1.0"
		more   = "55GkHamhTU1ZbTbV2ab9DE:2:person-plus:1.0"
	)
	personAttrs := []string{"name", "age", "birthdate_dateint", "city", "Favourite Colour", "balance"}
	for _, tt := range []struct {
		name     string
		schemaID string
		want     bool
		problem  string
	}{
		{"legacy definition, its own schema", person, true, ""},
		{"legacy definition, a schema without the revealed name", staff, false,
			`does not fit schema ` + staff + `: the definition has a key for "name", which the schema lacks`},
		{"legacy definition, a schema with one more attribute", more, false,
			`does not fit schema ` + more + `: the definition has no key for the attribute "nickname"`},
	} {
		reg := loadRegistry(t)
		def := *reg.defs[cid]
		def.SchemaID = "42" // as a legacy Indy ledger writes it
		reg.defs[cid] = &def
		own := *reg.schemas[person]
		own.SeqNo = 42 // its own, so that only the key's fit is in question
		reg.schemas[person] = &own
		reg.schemas[staff] = &Schema{ID: staff, IssuerID: "55GkHamhTU1ZbTbV2ab9DE", Name: "staff", Version: "1.0",
			AttrNames: []string{"age", "birthdate_dateint", "city", "Favourite Colour", "balance"}}
		reg.schemas[more] = &Schema{ID: more, IssuerID: "55GkHamhTU1ZbTbV2ab9DE", Name: "person-plus", Version: "1.0",
			AttrNames: append(append([]string{}, personAttrs...), "nickname")}

		got := verifyUnderSchema(t, reg, tt.schemaID)
		if got.Verified != tt.want || (tt.problem != "" && (got.Reason != verify.ReasonRestriction || !hasProblem(got, tt.problem))) {
			t.Errorf("%s: %+v, want verified %v, problem %q", tt.name, got, tt.want, tt.problem)
		}
	}
}

// verifyUnderSchema verifies corpus case reveal-one (it reveals name)
// with its credential shown under schema schemaID and the request
// restricted to that schema.
func verifyUnderSchema(t *testing.T, reg *mapResolver, schemaID string) Verdict {
	t.Helper()
	return verifyRestricted(t, reg, schemaID, map[string]any{"schema_id": schemaID})
}

// verifyRestricted verifies corpus case reveal-one with its credential
// shown under schema schemaID and the request's referent restricted by
// restriction.
func verifyRestricted(t *testing.T, reg *mapResolver, schemaID string, restriction map[string]any) Verdict {
	t.Helper()
	tc := corpusCaseNamed(t, "reveal-one")
	req := toMap(t, tc.Request)
	req["requested_attributes"].(map[string]any)["r1"].(map[string]any)["restrictions"] = []any{restriction}
	pres := toMap(t, tc.Presentation)
	pres["identifiers"].([]any)[0].(map[string]any)["schema_id"] = schemaID
	return (&Verifier{Resolver: reg}).Verify(context.Background(), toJSON(t, req), toJSON(t, pres))
}

// TestLegacySchemaSeqNo: a legacy definition names its schema by ledger
// sequence number; when the schema's document gives its own (ACA-Py's
// answers do), a presentation naming another schema is refused, even one
// with exactly the definition's attributes. When it gives none (a files
// source's may not), nothing ties the credential to the schema it is
// shown under: a restriction on the schema is not met, saying why, and
// one on the definition alone still is.
func TestLegacySchemaSeqNo(t *testing.T) {
	const (
		cid    = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
		person = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
		twin   = "55GkHamhTU1ZbTbV2ab9DE:2:person-twin:1.0" // the same attributes
	)
	given := map[string]int64{person: 42, twin: 43}
	unconfirmed := func(schemaID string) string {
		return `requested attribute "r1": credential ` + cid + " does not meet its restrictions (its schema cannot be confirmed: the credential definition names its schema by ledger sequence number 42, and the document of schema " + schemaID + " gives no seqNo to compare)"
	}
	for _, tt := range []struct {
		name        string
		schemaID    string
		seqNos      map[string]int64 // schema id → its seqNo (absent: unknown)
		restriction map[string]any   // nil: schema_id of schemaID
		want        string           // the problem; "" for verified
	}{
		{"its own schema, seqNo given", person, given, nil, ""},
		{"another schema with the same attributes, seqNo given", twin, given, nil,
			"credential 0: credential definition " + cid + " is for the schema with ledger sequence number 42; schema " + twin + " has 43"},
		{"another schema with the same attributes, seqNo unknown", twin, nil, nil, unconfirmed(twin)},
		{"another schema by name, seqNo unknown", twin, nil, map[string]any{"schema_name": "person-twin"}, unconfirmed(twin)},
		{"its own schema, seqNo unknown", person, nil, nil, unconfirmed(person)},
		{"its own schema, seqNo unknown, restricted by definition", person, nil, map[string]any{"cred_def_id": cid}, ""},
		{"its own schema, seqNo unknown, restricted by definition and schema", person, nil, map[string]any{"cred_def_id": cid, "schema_id": person}, unconfirmed(person)},
		{"another schema, seqNo unknown, restricted by definition", twin, nil, map[string]any{"cred_def_id": cid}, ""},
	} {
		reg := loadRegistry(t)
		def := *reg.defs[cid]
		def.SchemaID = "42" // as a legacy Indy ledger writes it
		reg.defs[cid] = &def
		own := *reg.schemas[person]
		reg.schemas[person] = &own
		other := own
		other.ID, other.Name = twin, "person-twin"
		reg.schemas[twin] = &other
		for id, n := range tt.seqNos {
			reg.schemas[id].SeqNo = n
		}
		restriction := tt.restriction
		if restriction == nil {
			restriction = map[string]any{"schema_id": tt.schemaID}
		}
		got := verifyRestricted(t, reg, tt.schemaID, restriction)
		if tt.want == "" && !got.Verified {
			t.Errorf("%s: %+v, want verified", tt.name, got)
		}
		if tt.want != "" && (got.Verified || got.Reason != verify.ReasonRestriction || !hasProblem(got, tt.want)) {
			t.Errorf("%s: %+v, want refused: %s", tt.name, got, tt.want)
		}
	}
}
