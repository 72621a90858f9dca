package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/validate"
)

// noRecords is the part of a test backend that holds no record to accept
// or own.
type noRecords struct{}

func (noRecords) AcceptPresentation(context.Context, backend.Org, string) (backend.ProofRecord, error) {
	return backend.ProofRecord{}, backend.ErrNotFound
}
func (noRecords) RecordOrg(context.Context, string) (string, error) {
	return "", backend.ErrNotFound
}

// slowAfterFirst makes its first proof request at once and waits for the
// request's end on every later one (an agent at its timeout, many times).
type slowAfterFirst struct {
	noRecords
	mu        sync.Mutex
	made      int
	discarded []string
}

func (s *slowAfterFirst) SendOutOfBandRequest(ctx context.Context, _ backend.Org, _ backend.OOBRequest) (backend.OOBResult, error) {
	s.mu.Lock()
	s.made++
	n := s.made
	s.mu.Unlock()
	if n > 1 {
		<-ctx.Done()
		return backend.OOBResult{}, fmt.Errorf("%w: %w", backend.ErrTimeout, ctx.Err())
	}
	id := "0f8fad5b-d9cb-469f-a165-70867728950f"
	return backend.OOBResult{ProofRecord: backend.ProofRecord{ID: id, ThreadID: id, State: backend.StateRequestSent}, InvitationURL: "https://verifier.example.com/?oob=x"}, nil
}
func (s *slowAfterFirst) DiscardRecord(_ context.Context, _ backend.Org, created backend.OOBResult) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discarded = append(s.discarded, created.ProofRecord.ID)
	return nil
}

// mailRecorder is a Mailer that remembers what it was told.
type mailRecorder struct {
	mu                          sync.Mutex
	queued, cancelled, released []string
}

func (m *mailRecorder) Queue(_ context.Context, im InvitationMail) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := fmt.Sprintf("mail-%d", len(m.queued))
	m.queued = append(m.queued, id)
	return id, nil
}
func (m *mailRecorder) Cancel(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cancelled = append(m.cancelled, id)
	return nil
}
func (m *mailRecorder) Release(ids ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.released = append(m.released, ids...)
}

// A create to several recipients that runs past its time limit (shorter
// than the hold of its staged mails and webhooks, which are delivered
// anyway once it ends) is undone while its mails can still be withdrawn:
// 504 naming the limit, the first recipient's mail cancelled and its
// record discarded, nothing released. It used to run on as long as its
// agent calls took.
func TestCreateDeadline(t *testing.T) {
	defer func(d time.Duration) { createDeadline = d }(createDeadline)
	createDeadline = 100 * time.Millisecond
	if CreateDeadline >= outbox.DefaultHold {
		t.Fatalf("CreateDeadline %s is not shorter than the outbox's hold %s", CreateDeadline, outbox.DefaultHold)
	}
	v, _ := validate.New(validate.Options{})
	b := &slowAfterFirst{}
	mail := &mailRecorder{}
	g := &Gateway{Logger: zap.NewNop(), Auth: auth.Chain{nobodyProvider{}}, AllowedRoles: []string{"admin"},
		Validator: v, Backends: oneBackend{b}, MaxBodySize: 1 << 20, Mail: mail}
	body := strings.Replace(benchIndy, `{`, `{"emailId":["a@example.com","b@example.com","c@example.com"],`, 1)
	r := httptest.NewRequest(http.MethodPost, "/orgs/"+benchOrg+"/proofs/oob?requestType=indy", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	g.SendOutOfBandRequest(w, r, benchOrg)
	if w.Code != http.StatusGatewayTimeout || !strings.Contains(w.Body.String(), "after 1 of 3 recipients") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	mail.mu.Lock()
	defer mail.mu.Unlock()
	if len(mail.queued) != 1 || len(mail.cancelled) != 1 || len(mail.released) != 0 {
		t.Fatalf("mails queued %v, cancelled %v, released %v", mail.queued, mail.cancelled, mail.released)
	}
	if len(b.discarded) != 1 {
		t.Fatalf("records discarded %v, want the first recipient's", b.discarded)
	}
}
