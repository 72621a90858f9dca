package acapy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// A caller that goes away while ACA-Py answers create-request leaves no
// request behind: nobody could get its invitation, so it is deleted, as
// one whose invitation failed is.
func TestCallerGoneDuringCreate(t *testing.T) {
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(context.Background(), r.Method, fake.URL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if strings.HasSuffix(r.URL.Path, "/create-request") {
			cancel() // the caller leaves once the request is made
			time.Sleep(100 * time.Millisecond)
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	b := newBackend(t, fake, func(b *Backend) { b.URL = proxy.URL })
	if _, err := b.SendOutOfBandRequest(ctx, backend.Org{ID: "org-a"}, indyRequest()); err == nil {
		t.Fatal("the create succeeded for a caller that went away")
	}
	if recs := fake.Records(""); len(recs) != 0 {
		t.Fatalf("the agent holds %d request(s) nobody has an invitation for", len(recs))
	}
}
