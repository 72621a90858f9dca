package anoncreds

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/verify"
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

// TestParseSchemaSeqNo: a legacy schema's ledger sequence number is read
// when its document gives it (ACA-Py's Schema: "seqNo", an integer ≥ 1).
func TestParseSchemaSeqNo(t *testing.T) {
	const id = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
	base := `{"ver":"1.0","id":"` + id + `","name":"person","version":"1.0","attrNames":["name"]`
	for _, tt := range []struct {
		doc     string
		want    int64
		wantErr bool
	}{
		{base + `}`, 0, false},
		{base + `,"seqNo":10}`, 10, false},
		{base + `,"seqNo":0}`, 0, true},
		{base + `,"seqNo":-3}`, 0, true},
		{base + `,"seqNo":"10"}`, 0, true},
	} {
		s, err := ParseSchema(id, []byte(tt.doc))
		if (err != nil) != tt.wantErr || (err == nil && s.SeqNo != tt.want) {
			t.Errorf("%s: %+v, %v; want seqNo %d, error %v", tt.doc, s, err, tt.want, tt.wantErr)
		}
	}
}

// TestCredDefNeedsSchemaID: schemaId ties a credential to its schema;
// without it a presentation could show the credential under any schema
// with the same attributes and meet that schema's restrictions
// (testdata/cred_def_without_schema_id.json). A definition document
// without one is refused as it is read, as the reference refuses it
// ("missing field `schemaId`"), and a Resolver that builds a definition
// without one is refused by Verify.
func TestCredDefNeedsSchemaID(t *testing.T) {
	const cid = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
	data, err := os.ReadFile(filepath.Join(corpusDir, "registry", "cred_defs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var defs map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &defs); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		schemaID any // nil: no schemaId member
		wantErr  string
	}{
		{name: "the schema's id", schemaID: "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"},
		{name: "a legacy ledger sequence number", schemaID: "42"},
		{name: "missing", wantErr: "schemaId is required"},
		{name: "empty", schemaID: "", wantErr: "schemaId is required"},
	} {
		doc := map[string]any{}
		for k, v := range defs[cid] {
			doc[k] = v
		}
		delete(doc, "schemaId")
		if tt.schemaID != nil {
			doc["schemaId"] = tt.schemaID
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseCredentialDefinition(cid, raw)
		switch {
		case tt.wantErr == "" && (err != nil || d.SchemaID != tt.schemaID):
			t.Errorf("%s: %+v, %v", tt.name, d, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}

	reg := loadRegistry(t)
	def := *reg.defs[cid]
	def.SchemaID = ""
	reg.defs[cid] = &def
	tc := corpusCaseNamed(t, "reveal-one")
	got := (&Verifier{Resolver: reg}).Verify(context.Background(), tc.Request, tc.Presentation)
	if got.Verified || got.Reason != verify.ReasonUnsupported || !hasProblem(got, "names no schema (schemaId)") {
		t.Errorf("a resolver's definition without schemaId: %+v", got)
	}
}
