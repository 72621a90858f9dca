package acapy

import (
	"context"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// A caller that goes away while ACA-Py answers create-request leaves no
// request behind: nobody could get its invitation, so it is deleted, as
// one whose invitation failed is.
func TestCallerGoneDuringCreate(t *testing.T) {
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	proxy := openapitest.CallerGoneProxy(t, fake.URL, "/create-request", cancel)
	b := newBackend(t, fake, func(b *Backend) { b.URL = proxy })
	if _, err := b.SendOutOfBandRequest(ctx, backend.Org{ID: "org-a"}, indyRequest()); err == nil {
		t.Fatal("the create succeeded for a caller that went away")
	}
	if recs := fake.Records(""); len(recs) != 0 {
		t.Fatalf("the agent holds %d request(s) nobody has an invitation for", len(recs))
	}
}
