package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/validate"
)

// steps is what a failed create's undo did, in order.
type steps struct {
	mu  sync.Mutex
	log []string
}

func (s *steps) add(step string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, step)
}

// failsThird makes two proof requests and fails the third; it logs its
// discards.
type failsThird struct {
	noRecords
	steps *steps
	made  int
}

func (f *failsThird) SendOutOfBandRequest(context.Context, backend.Org, backend.OOBRequest) (backend.OOBResult, error) {
	f.made++
	if f.made == 3 {
		return backend.OOBResult{}, fmt.Errorf("%w: the agent is down", backend.ErrUnavailable)
	}
	id := fmt.Sprintf("0f8fad5b-d9cb-469f-a165-70867728950%d", f.made)
	return backend.OOBResult{ProofRecord: backend.ProofRecord{ID: id, ThreadID: id, State: backend.StateRequestSent}, InvitationURL: "https://verifier.example.com/?oob=x"}, nil
}
func (f *failsThird) DiscardRecord(_ context.Context, _ backend.Org, created backend.OOBResult) error {
	id := created.ProofRecord.ID
	f.steps.add("discard " + id[len(id)-1:])
	return nil
}

// loggedMail logs its cancels into steps.
type loggedMail struct {
	mailRecorder
	steps *steps
}

func (m *loggedMail) Cancel(ctx context.Context, id string) error {
	m.steps.add("cancel " + id)
	return m.mailRecorder.Cancel(ctx, id)
}

// TestUndoWithdrawsMessagesBeforeDiscarding: a failed create withdraws
// every recipient's held mail before it discards any record at the agent,
// since each discard may take the agent's timeout and the first
// recipient's hold runs out a minute after the create's deadline.
func TestUndoWithdrawsMessagesBeforeDiscarding(t *testing.T) {
	v, _ := validate.New(validate.Options{})
	st := &steps{}
	b := &failsThird{steps: st}
	mail := &loggedMail{steps: st}
	g := &Gateway{Logger: zap.NewNop(), Auth: auth.Chain{nobodyProvider{}}, AllowedRoles: []string{"admin"},
		Validator: v, Backends: oneBackend{b}, MaxBodySize: 1 << 20, Mail: mail}
	failThreeRecipients(t, g)
	want := []string{"cancel mail-0", "cancel mail-1", "discard 2", "discard 1"}
	if strings.Join(st.log, ", ") != strings.Join(want, ", ") {
		t.Errorf("undo did %v, want %v", st.log, want)
	}
}

// failThreeRecipients sends g an indy create for three recipients, which
// its backend (failsThird) fails at the third: 503, the two made undone.
func failThreeRecipients(t *testing.T, g *Gateway) {
	t.Helper()
	body := strings.Replace(benchIndy, `{`, `{"emailId":["a@example.com","b@example.com","c@example.com"],`, 1)
	r := httptest.NewRequest(http.MethodPost, "/orgs/"+benchOrg+"/proofs/oob?requestType=indy", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	g.SendOutOfBandRequest(w, r, benchOrg)
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}
