package webhook

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
)

func stageAndCommit(t *testing.T, d *Dispatcher, c backend.StateChange) {
	t.Helper()
	st, err := d.Stage(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	st.Commit()
}

func waitFinal(t *testing.T, results chan outbox.Status) outbox.Status {
	t.Helper()
	for {
		select {
		case s := <-results:
			if s.State.Final() {
				return s
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no final outcome")
		}
	}
}

// A new config's dispatcher takes over the pooled deliverer; Caddy then
// refuses that config and cleans it up (Close). The old config, still
// running, must get its delivery function back: its webhook goes out.
func TestClosingARefusedConfigsDispatcherRestoresTheRunningOne(t *testing.T) {
	r := newReceiver(t, 0)
	other := newReceiver(t, 0)
	running, del, results := newTestDispatcher(t, t.TempDir(), Config{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true})
	refused, err := New([]Config{{URL: other.srv.URL, Secret: testSecret, AllowPrivate: true}}, del, zaptest.NewLogger(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	refused.Close() // Cleanup of the refused config
	refused.Close() // tolerant: twice is harmless
	del.Start()
	stageAndCommit(t, running, change("ev-1", "", backend.StateRequestSent, "org-1"))
	if s := waitFinal(t, results); s.State != outbox.StateSent {
		t.Fatalf("status %+v", s)
	}
	if got := r.events(); len(got) != 1 || got[0].id != "ev-1" {
		t.Fatalf("received %+v", got)
	}
}

// While a new config is being provisioned, its dispatcher (the newest)
// does not know the running config's endpoint: it passes the message on
// (outbox.ErrNotMine) and the running config delivers it at once. Once
// no config knows the endpoint, that is a temporary failure, not a
// permanent one: the config that knows it may be on its way.
func TestUnknownEndpointIsRetried(t *testing.T) {
	r := newReceiver(t, 0)
	running, del, results := newTestDispatcher(t, t.TempDir(), Config{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true})
	sharing(t, del) // the config being provisioned knows no endpoint
	del.Start()
	stageAndCommit(t, running, change("ev-1", "", backend.StateRequestSent, "org-1"))
	if s := waitFinal(t, results); s.State != outbox.StateSent {
		t.Fatalf("status %+v", s)
	}
	if got := r.events(); len(got) != 1 || got[0].id != "ev-1" {
		t.Fatalf("received %+v", got)
	}
	running.Close() // replaced by a config without the endpoint
	stageAndCommit(t, running, change("ev-2", "", backend.StateRequestSent, "org-1"))
	select {
	case s := <-results:
		if s.State != outbox.StateQueued || s.LastError != "endpoint-not-configured" {
			t.Fatalf("no config knows the endpoint: %+v", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no attempt")
	}
}

// One change's commit releases its own messages only: the creation event
// of a request still running is not sent when another request commits,
// and its Abort withdraws it.
func TestCommitReleasesOnlyItsOwnChange(t *testing.T) {
	r := newReceiver(t, 0)
	d, del, results := newTestDispatcher(t, t.TempDir(), Config{URL: r.srv.URL, Secret: testSecret, AllowPrivate: true})
	del.Start()
	inFlight, err := d.Stage(context.Background(), change("ev-x", "", backend.StateRequestSent, "org-1"))
	if err != nil {
		t.Fatal(err)
	}
	stageAndCommit(t, d, change("ev-y", "", backend.StateRequestSent, "org-1"))
	if s := waitFinal(t, results); s.State != outbox.StateSent {
		t.Fatalf("status %+v", s)
	}
	del.ScanNow()
	time.Sleep(300 * time.Millisecond)
	inFlight.Abort(context.Background()) // the request failed
	if _, err := del.Outbox().Status(context.Background(), messageID("ev-x", r.srv.URL)); !errors.Is(err, outbox.ErrNotFound) {
		t.Fatalf("the aborted change's message: %v", err)
	}
	if got := r.events(); len(got) != 1 || got[0].id != "ev-y" {
		t.Fatalf("received %+v", got)
	}
}

// Two handlers on one storage (two sites, each with its own webhook) share
// the storage's deliverer; each one's events reach its own endpoint. The
// newest handler used to take every message and fail the other's as
// endpoint-not-configured until it gave up.
func TestTwoHandlersShareTheDeliverer(t *testing.T) {
	ra, rb := newReceiver(t, 0), newReceiver(t, 0)
	siteA, del, results := newTestDispatcher(t, t.TempDir(), Config{URL: ra.srv.URL, Secret: testSecret, AllowPrivate: true})
	siteB := sharing(t, del, Config{URL: rb.srv.URL, Secret: testSecret, AllowPrivate: true})
	del.Start()
	stageAndCommit(t, siteA, change("ev-a", "", backend.StateRequestSent, "org-a"))
	if s := waitFinal(t, results); s.State != outbox.StateSent {
		t.Fatalf("site A's event: %+v", s)
	}
	stageAndCommit(t, siteB, change("ev-b", "", backend.StateRequestSent, "org-b"))
	if s := waitFinal(t, results); s.State != outbox.StateSent {
		t.Fatalf("site B's event: %+v", s)
	}
	if got := ra.events(); len(got) != 1 || got[0].id != "ev-a" {
		t.Fatalf("site A's endpoint received %+v", got)
	}
	if got := rb.events(); len(got) != 1 || got[0].id != "ev-b" {
		t.Fatalf("site B's endpoint received %+v", got)
	}
}
