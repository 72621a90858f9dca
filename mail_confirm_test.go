package proofgate

import (
	"context"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// An invitation mail goes out only while its local record can be
// answered: not for another org's record, not once a failed create
// discarded it (its mail's withdrawal having failed too), not for a
// record that never existed.
func TestInvitationMailNeedsItsRecord(t *testing.T) {
	ctx := caddyContext(t)
	h, err := provisionJSON(t, ctx, `{
		"backends": {"v": {"type": "local", "public_url": "https://v.example.com"}},
		"default_backend": "v",
		"auth": {"providers": [{"provider": "api_key", "keys": [{"key": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "orgs": ["*"]}]}]}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	b, org, _ := h.gw.Backends.Route("org-a")
	res, err := b.SendOutOfBandRequest(context.Background(), org, backend.OOBRequest{
		RequestType: backend.RequestIndy, ProtocolVersion: backend.ProtocolV2,
		Indy: &backend.IndyProofRequest{Name: "age", Version: "1.0", RequestedAttributes: map[string]backend.IndyAttribute{"a": {Name: "name"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.ProofRecord.ID
	confirm := func(orgID, recordID string) bool {
		t.Helper()
		ok, err := h.confirmInvitationMail(context.Background(), orgID, recordID, backend.StateRequestSent)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !confirm("org-a", id) {
		t.Fatal("the mail of a record just created is not sent")
	}
	if confirm("org-b", id) {
		t.Fatal("a mail naming another org's record is sent")
	}
	if confirm("org-a", "0b8f6f0e-3f4e-4c8a-9a43-7f1f0d2f9e10") {
		t.Fatal("the mail of a record that never existed is sent")
	}
	if err := b.(backend.Discarder).DiscardRecord(context.Background(), org, res); err != nil {
		t.Fatal(err)
	}
	if confirm("org-a", id) {
		t.Fatal("the mail of a discarded record is sent")
	}
}
