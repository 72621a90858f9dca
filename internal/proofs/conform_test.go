package proofs

import "testing"

func TestIndyRestrictions(t *testing.T) {
	ids := credIdentifiers{SchemaID: "L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0", CredDefID: "Th7MpTaRZVRYnPiabds81Y:3:CL:12:default"}
	revealed := map[string]string{"name": "Alice"}
	tests := []struct {
		r    map[string]string
		want bool
	}{
		{map[string]string{"schema_id": ids.SchemaID}, true},
		{map[string]string{"schema_name": "employee", "schema_version": "1.0", "schema_issuer_did": "L5u3AaDjGhV2AjL6mwAjLm"}, true},
		{map[string]string{"schema_name": "employee", "schema_version": "2.0"}, false},
		{map[string]string{"issuer_did": "Th7MpTaRZVRYnPiabds81Y"}, true},
		{map[string]string{"issuer_id": "L5u3AaDjGhV2AjL6mwAjLm"}, false},
		{map[string]string{"cred_def_id": "other"}, false},
		{map[string]string{"attr::Name::value": "Alice"}, true},
		{map[string]string{"attr::name::value": "Bob"}, false},
		{map[string]string{"attr::age::marker": "1"}, true}, // not revealed: cannot tell
		{map[string]string{"unknown_key": "x"}, false},
	}
	for _, tt := range tests {
		if got := restrictionsMet([]map[string]string{tt.r}, ids, revealed); got != tt.want {
			t.Errorf("%v: %v", tt.r, got)
		}
	}
	// OR of objects
	if !restrictionsMet([]map[string]string{{"cred_def_id": "other"}, {"schema_id": ids.SchemaID}}, ids, revealed) {
		t.Error("OR of restrictions")
	}
	// Qualified identifiers: the schema name needs the ledger; not decided here.
	q := credIdentifiers{SchemaID: "did:web:issuer.example/schemas/employee", CredDefID: "did:web:issuer.example/creddefs/1"}
	if !restrictionsMet([]map[string]string{{"schema_name": "employee"}}, q, nil) {
		t.Error("qualified schema_name")
	}
	// Legacy ids whose issuer is a did:sov DID (older Credo and ACA-Py
	// output) are split as the validator splits them, so their parts are
	// checked, not waved through as undecidable.
	sov := credIdentifiers{SchemaID: "did:sov:L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0", CredDefID: "did:sov:Th7MpTaRZVRYnPiabds81Y:3:CL:12:default"}
	for r, want := range map[[2]string]bool{
		{"schema_name", "employee"}:                             true,
		{"schema_name", "manager"}:                              false,
		{"schema_version", "2.0"}:                               false,
		{"schema_issuer_did", "did:sov:L5u3AaDjGhV2AjL6mwAjLm"}: true,
		{"issuer_did", "did:sov:Th7MpTaRZVRYnPiabds81Y"}:        true,
		{"issuer_did", "did:sov:L5u3AaDjGhV2AjL6mwAjLm"}:        false,
	} {
		if got := restrictionsMet([]map[string]string{{r[0]: r[1]}}, sov, nil); got != want {
			t.Errorf("did:sov ids, %s=%s: %v, want %v", r[0], r[1], got, want)
		}
	}
}
