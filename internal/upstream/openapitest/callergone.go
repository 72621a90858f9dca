package openapitest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// CallerGoneProxy returns the URL of a proxy in front of agentURL that
// forwards every call and, when one whose path ends in suffix has been
// answered by the agent, calls goAway (the caller's cancel) and holds the
// answer a moment before passing it on: a caller that leaves once the
// agent has acted, before it hears of it.
func CallerGoneProxy(t testing.TB, agentURL, suffix string, goAway context.CancelFunc) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(context.Background(), r.Method, agentURL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if strings.HasSuffix(r.URL.Path, suffix) {
			goAway()
			time.Sleep(100 * time.Millisecond)
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
