package anoncreds

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCredDefIssuerFromLegacyID: a credential definition document without
// issuerId (a legacy ledger's) takes its issuer from a legacy id, also an
// untagged one or one whose issuer is a did:sov DID, so that issuer_did
// restrictions can be decided.
func TestCredDefIssuerFromLegacyID(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "registry", "cred_defs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var defs map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &defs); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	for _, d := range defs {
		doc = d
		break
	}
	delete(doc, "issuerId")
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"55GkHamhTU1ZbTbV2ab9DE:3:CL:12:default":         "55GkHamhTU1ZbTbV2ab9DE",
		"did:sov:55GkHamhTU1ZbTbV2ab9DE:3:CL:12:default": "did:sov:55GkHamhTU1ZbTbV2ab9DE",
		"55GkHamhTU1ZbTbV2ab9DE:3:CL:12":                 "55GkHamhTU1ZbTbV2ab9DE", // the oldest, untagged
		"did:web:issuer.example/creddefs/1":              "",
	} {
		d, err := ParseCredentialDefinition(id, raw)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if d.IssuerID != want {
			t.Errorf("%s: issuer %q, want %q", id, d.IssuerID, want)
		}
	}
}
