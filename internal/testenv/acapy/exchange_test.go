package acapy

import (
	"testing"
)

// TestIssueTestCredential issues a did:key JSON-LD credential between two
// real agents, with no ledger and nothing fetched from the network.
func TestIssueTestCredential(t *testing.T) {
	t.Parallel()
	issuer := Shared(t, ExtraArgs(IssuerArgs...))
	holder := Shared(t, ExtraArgs(HolderArgs...))
	h := IssueTestCredential(t, issuer, holder, map[string]any{"givenName": "Alice", "birthDate": "1990-01-01"})
	c := h.Credential.Credential
	if h.Credential.RecordID == "" || c["issuer"] != h.IssuerDID {
		t.Fatalf("stored credential %v (record %q)", c, h.Credential.RecordID)
	}
	proof, _ := c["proof"].(map[string]any)
	if proof["type"] != "Ed25519Signature2018" {
		t.Errorf("proof %v, want Ed25519Signature2018", proof)
	}
	subject, _ := c["credentialSubject"].(map[string]any)
	if subject["id"] != h.HolderDID || subject["givenName"] != "Alice" {
		t.Errorf("subject %v", subject)
	}
}
