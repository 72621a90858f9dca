package mail

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/outbox"
)

// A mail is confirmed before it is sent, as a webhook is: one whose
// record never reached its state (a create undone, whose Cancel failed)
// is retried, then dropped and counted as a failed mail delivery; a
// confirmed one is sent; one queued by an older version, which names no
// state, is sent without asking.
func TestMailIsSentOnlyOnceItsChangeIsConfirmed(t *testing.T) {
	tests := []struct {
		name      string
		id, to    string
		state     string // "": planted as an older version stored it
		reached   bool   // what confirm answers for the mail's record
		want      State
		lastError string
		attempts  int
		asked     bool
	}{
		{"record never reached the state", "ghost", "ghost@example.org", "request-sent", false,
			StateFailed, outbox.ChangeNotStored, outbox.UnconfirmedAttempts, true},
		{"record reached the state", "real", "real@example.org", "request-sent", true,
			StateSent, "", 1, true},
		{"older version's mail, without a state", "old", "old@example.org", "", false,
			StateSent, "", 1, false},
	}

	srv := startServer(t, serverOptions{})
	h := newHarness(t, testConfig(srv.addr), t.TempDir())
	var mu sync.Mutex
	reached := map[string]bool{}
	asked := map[string]int{}
	confirm := func(_ context.Context, org, rec, state string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[rec]++
		return reached[rec], nil
	}
	h.d.Subscribe(nil, confirm)
	failedBefore := mailFailures(t)

	for _, tt := range tests {
		m := testMessage(tt.id, tt.to)
		reached[m.ProofRecordID] = tt.reached
		if tt.state == "" {
			plantOldMail(t, h.outbox, m)
			continue
		}
		m.State = tt.state
		h.enqueue(t, m)
	}
	h.d.Start()
	for _, tt := range tests {
		h.d.Notify(tt.id) // each request committed
	}

	final := map[string]Status{}
	for len(final) < len(tests) {
		if r := h.next(t); r.st.State.Final() {
			final[r.msg.ID] = r.st
		}
	}
	sentTo := map[string]bool{}
	for _, m := range srv.messages() {
		sentTo[m.To[0]] = true
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := final[tt.id]
			if s.State != tt.want || s.LastError != tt.lastError || s.Attempts != tt.attempts {
				t.Errorf("status %+v, want %s after %d attempts (%q)", s, tt.want, tt.attempts, tt.lastError)
			}
			if sentTo[tt.to] != (tt.want == StateSent) {
				t.Errorf("reached the SMTP server: %v", sentTo[tt.to])
			}
			mu.Lock()
			n := asked["rec-"+tt.id]
			mu.Unlock()
			if (n > 0) != tt.asked {
				t.Errorf("confirm asked %d times", n)
			}
		})
	}
	if n := len(srv.messages()); n != 2 {
		t.Errorf("the SMTP server got %d mails, want 2", n)
	}
	if got := mailFailures(t) - failedBefore; got != 1 {
		t.Errorf("outbox_deliveries_total{kind=mail,outcome=failed} grew by %v, want 1 (the dropped mail)", got)
	}
}

// plantOldMail stores m as a version without Message.State queued it: a
// document whose message has no "state" at all.
func plantOldMail(t *testing.T, o *Outbox, m Message) {
	t.Helper()
	now := o.now().UTC()
	msg, err := json.Marshal(map[string]any{
		"id": m.ID, "to": m.To, "orgId": m.OrgID, "proofRecordId": m.ProofRecordID, "threadId": m.ThreadID,
		"invitationUrl": m.InvitationURL, "label": m.Label, "createdAt": now,
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := outbox.Document{Kind: Kind, Message: msg, Held: true, Status: outbox.Status{
		State: StateQueued, NextAttempt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now,
	}}
	if err := o.store.Put(t.Context(), m.ID, &doc); err != nil {
		t.Fatal(err)
	}
}

// mailFailures reads caddy_proofgate_outbox_deliveries_total{kind="mail",
// outcome="failed"}, the counter a dropped webhook is counted in too.
func mailFailures(t *testing.T) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := metrics.Register(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "caddy_proofgate_outbox_deliveries_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == metrics.KindMail && labels["outcome"] == metrics.Failed {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
