package w3c

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	bits := make([]byte, 16384)
	bits[0] = 0x80 >> 5 // index 5 revoked
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bits)
	_ = zw.Close()
	var listRaw []byte
	var first atomic.Bool
	first.Store(true)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(true, false) {
			time.Sleep(300 * time.Millisecond) // a slow moment of the list host
		}
		_, _ = w.Write(listRaw)
	}))
	defer srv.Close()
	list := issuer.sign(t, map[string]any{
		"@context":     []any{"https://www.w3.org/2018/credentials/v1", "https://w3id.org/vc/status-list/2021/v1"},
		"id":           srv.URL + "/lists/1",
		"type":         []any{"VerifiableCredential", "StatusList2021Credential"},
		"issuer":       issuer.did,
		"issuanceDate": "2024-01-01T00:00:00Z",
		"credentialSubject": map[string]any{"id": srv.URL + "/lists/1#list", "type": "StatusList2021",
			"statusPurpose": "revocation", "encodedList": base64.RawURLEncoding.EncodeToString(gz.Bytes())},
	}, ldp.SignOptions{Purpose: did.AssertionMethod})
	listRaw, _ = json.Marshal(list)
	c := acapyCredential(issuer.did, holder.did)
	c["@context"] = append(c["@context"].([]any), "https://w3id.org/vc/status-list/2021/v1")
	c["credentialStatus"] = map[string]any{"id": srv.URL + "/lists/1#5", "type": "StatusList2021Entry",
		"statusPurpose": "revocation", "statusListIndex": "5", "statusListCredential": srv.URL + "/lists/1"}
	cred := issuer.sign(t, c, ldp.SignOptions{Purpose: did.AssertionMethod})
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
