package agent

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestMessage(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"message":"CredoError: x"}`, "CredoError: x"},
		{`{"reason":"not found"}`, "not found"},
		{`{"detail":"d"}`, "d"},
		{"400: Presentation exchange in request-sent state\n", "400: Presentation exchange in request-sent state"},
		{`{"other":1}`, `{"other":1}`},
	} {
		if got := Message([]byte(tt.body)); got != tt.want {
			t.Errorf("Message(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestRetries: a call that never reached the agent is retried; one the
// agent may have acted on is retried only when idempotent.
func TestRetries(t *testing.T) {
	var hits atomic.Int32
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	}))
	defer hangup.Close()
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()

	for _, tt := range []struct {
		name       string
		base       string
		idempotent bool
		wantHits   int32
		want       func(error) bool
	}{
		{"POST hangup: once", hangup.URL, false, 1, func(err error) bool { var ue *backend.UpstreamError; return errors.As(err, &ue) }},
		{"GET hangup: retried", hangup.URL, true, maxIdempotentAttempts, func(err error) bool { var ue *backend.UpstreamError; return errors.As(err, &ue) }},
		{"POST refused: unavailable", refusedURL, false, 0, func(err error) bool { return errors.Is(err, backend.ErrUnavailable) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hits.Store(0)
			u, _ := url.Parse(tt.base)
			c := NewClient(u, &http.Transport{DisableKeepAlives: true}, time.Second, 0, nil)
			c.backoff = func(int) time.Duration { return time.Millisecond }
			_, err := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/x", Body: map[string]int{"a": 1}, Idempotent: tt.idempotent})
			if !tt.want(err) {
				t.Fatalf("error %v", err)
			}
			if hits.Load() != tt.wantHits {
				t.Errorf("agent hit %d times, want %d", hits.Load(), tt.wantHits)
			}
		})
	}
}

func TestCallerGone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := NewClient(u, http.DefaultTransport, 10*time.Second, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Do(ctx, Request{Method: http.MethodGet, Path: "/"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestTokensShareOneFetch(t *testing.T) {
	var fetches atomic.Int32
	release := make(chan struct{})
	tk := NewTokens(map[string]string{"static": "s"}, func(ctx context.Context, tenant string) (string, error) {
		fetches.Add(1)
		<-release
		return "tok-" + tenant, nil
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if tok, err := tk.Get(context.Background(), "t1"); err != nil || tok != "tok-t1" {
				t.Errorf("Get = %q, %v", tok, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for concurrent misses, want 1", n)
	}
	if tok, _ := tk.Get(context.Background(), "static"); tok != "s" || tk.Renewable("static", "s") {
		t.Errorf("configured token: %q, renewable", tok)
	}
	if !tk.Renewable("t1", "stale-other") {
		t.Fatal("fetched token not renewable")
	}
	if tok, _ := tk.Get(context.Background(), "t1"); tok != "tok-t1" || fetches.Load() != 1 {
		t.Errorf("refusing a token we no longer hold dropped the current one")
	}
	tk.Renewable("t1", "tok-t1")
	if _, _ = tk.Get(context.Background(), "t1"); fetches.Load() != 2 {
		t.Errorf("refused token not renewed")
	}
	if _, err := NewTokens(nil, nil).Get(context.Background(), "x"); !errors.Is(err, ErrNoToken) {
		t.Errorf("no token and no fetch: %v", err)
	}
}
