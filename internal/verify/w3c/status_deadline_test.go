package w3c

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// A holder of a revoked credential first sends a presentation whose
// verification runs out of time while the status list is being fetched
// (Verify answers an error: the record stays in request-sent), then sends
// it again. The first, interrupted fetch must not be remembered as "status
// list unreachable": with status_unknown accept the revoked credential
// would then verify; with fail, every holder of that issuer's credentials
// is refused for 30 s.
func TestInterruptedStatusFetchNotRemembered(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	var first atomic.Bool
	first.Store(true)
	cred, srv := revokedCredentialServed(t, issuer, holder, func() {
		if first.CompareAndSwap(true, false) {
			time.Sleep(300 * time.Millisecond) // a slow moment of the list host
		}
	})
	pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})

	v := newTestVerifier(t, Options{StatusUnknown: "accept"}, Env{HTTPClient: srv.Client()})
	short, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	// The verification's deadline passes while the list is fetched: it
	// ends without a verdict (the record stays request-sent), and the
	// fetch goes on for the next.
	if got, err := v.Verify(short, input(t, pres)); err == nil {
		raw, _ := json.Marshal(got)
		t.Fatalf("a verification whose deadline passed during the status fetch gave a verdict: %s", raw)
	}
	got, err := v.Verify(context.Background(), input(t, pres))
	if err != nil {
		t.Fatal(err)
	}
	if got.Verified || got.Reason != verify.ReasonRevoked {
		raw, _ := json.Marshal(got)
		t.Fatalf("retry of a revoked credential: %s; want reason %q (the interrupted fetch was cached as unknown)", raw, verify.ReasonRevoked)
	}
}
