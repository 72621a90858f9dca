// Package webhookrx is a webhook receiver on loopback for tests: it
// verifies every Standard Webhooks signature, can be down (503) for its
// first attempts, and keeps what it accepted.
package webhookrx

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/webhook"
)

// Secret is the receivers' signing secret (the Standard Webhooks example).
const Secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// Delivery is one accepted webhook message.
type Delivery struct {
	ID    string
	Event webhook.Event
}

// Receiver is a webhook endpoint.
type Receiver struct {
	URL string

	mu       sync.Mutex
	down     int
	attempts int
	bad      int
	got      []Delivery
	arrived  chan struct{}
}

// Start runs a receiver that answers 503 to its first down attempts.
func Start(t testing.TB, down int) *Receiver {
	t.Helper()
	key, err := webhook.ParseSecret(Secret)
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{down: down, arrived: make(chan struct{}, 1000)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		r.mu.Lock()
		defer r.mu.Unlock()
		r.attempts++
		if err := webhook.Verify(key, req.Header.Get(webhook.HeaderID), req.Header.Get(webhook.HeaderTimestamp),
			req.Header.Get(webhook.HeaderSignature), body, time.Now(), 5*time.Minute); err != nil {
			r.bad++
			t.Errorf("webhook with a bad signature: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.attempts <= r.down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var ev webhook.Event
		if err := json.Unmarshal(body, &ev); err != nil || ev.ID != req.Header.Get(webhook.HeaderID) {
			t.Errorf("webhook body %s (id header %q): %v", body, req.Header.Get(webhook.HeaderID), err)
		}
		r.got = append(r.got, Delivery{ID: req.Header.Get(webhook.HeaderID), Event: ev})
		w.WriteHeader(http.StatusOK)
		r.arrived <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Deliveries returns what was accepted so far.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Attempts counts every request, refused ones included.
func (r *Receiver) Attempts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

// WaitFor waits until the receiver holds events for every state in
// states (deduplicated by webhook-id) and returns them in arrival order.
func (r *Receiver) WaitFor(t testing.TB, timeout time.Duration, states ...string) []Delivery {
	t.Helper()
	deadline := time.After(timeout)
	for {
		uniq := Unique(r.Deliveries())
		have := map[string]bool{}
		for _, d := range uniq {
			have[d.Event.Data.State] = true
		}
		all := true
		for _, s := range states {
			all = all && have[s]
		}
		if all {
			return uniq
		}
		select {
		case <-r.arrived:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("webhook receiver: want states %v, got %+v", states, uniq)
		}
	}
}

// Unique drops at-least-once duplicates (the same webhook-id).
func Unique(ds []Delivery) []Delivery {
	seen := map[string]bool{}
	var out []Delivery
	for _, d := range ds {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	return out
}
