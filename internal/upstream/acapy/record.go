package acapy

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// normalize maps a V20PresExRecord to Credo's ProofExchangeRecord shape:
// pres_ex_id → id, thread_id → threadId, created_at → createdAt (Credo's
// millisecond ISO form), verified "true"/"false" → isVerified. The state
// names are the same RFC 0454 names in both.
func normalize(raw []byte) (backend.ProofRecord, error) {
	px, ok := readPresEx(raw)
	if !ok {
		return backend.ProofRecord{}, errors.New("presentation exchange record is not a JSON object")
	}
	if !isUUID4(px.PresExID) || px.ThreadID == "" || px.State == "" {
		return backend.ProofRecord{}, errors.New("presentation exchange record without UUID pres_ex_id, thread_id or state")
	}
	rec := backend.ProofRecord{
		Metadata:        map[string]any{},
		ID:              px.PresExID,
		CreatedAt:       credoTime(px.CreatedAt),
		ConnectionID:    px.ConnectionID,
		ThreadID:        px.ThreadID,
		ProtocolVersion: backend.ProtocolV2,
		State:           px.State,
		Role:            px.Role,
		ErrorMessage:    px.ErrorMsg,
	}
	rec.UpdatedAt = rec.CreatedAt // a new record's are the same
	if px.UpdatedAt != px.CreatedAt {
		rec.UpdatedAt = credoTime(px.UpdatedAt)
	}
	if rec.Role == "" {
		rec.Role = backend.RoleVerifier
	}
	switch px.Verified {
	case "true", "false":
		v := px.Verified == "true"
		rec.IsVerified = &v
	}
	return rec, nil
}

// ACA-Py writes "2021-12-31T23:59:59.123456Z", or with a space, or an
// offset; Credo clients expect "2021-12-31T23:59:59.123Z".
var timeLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
}

func credoTime(s string) string {
	if t, ok := credoTimeFast(s); ok {
		return t
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC().Format(backend.TimeFormat)
		}
	}
	return s
}

// AcceptPresentation verifies the received presentation (ACA-Py's
// verify-presentation, which also sends the ack the request asked for) and
// returns the record, now done. It is one agent call, like a proxied one:
// ACA-Py checks the state itself and refuses a record not in
// presentation-received with a 400 that names the state, answered 409.
//
// ACA-Py also logs that refusal as an ERROR with a traceback, and some
// clients poll accept while they wait for the holder. So a record once
// found not ready is read first on later accepts (for notReadyTTL, in
// this process), and verify-presentation is called only once its state
// allows: a polling client costs ACA-Py one traceback, not one per poll.
func (b *Backend) AcceptPresentation(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	if !isUUID4(id) {
		return backend.ProofRecord{}, backend.ErrNotFound // ACA-Py ids are UUID4; its route refuses others
	}
	if _, polled := b.notReady.Peek(id); polled {
		cur, err := b.get(ctx, org, id)
		if err != nil {
			return backend.ProofRecord{}, err
		}
		if cur.State != backend.StatePresentationReceived {
			return backend.ProofRecord{}, &backend.ConflictError{State: cur.State}
		}
	}
	call := agent.Request{Method: http.MethodPost, Path: recordPath(id) + "/verify-presentation"}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if resp.Status == http.StatusBadRequest {
		if state, ok := b.wrongState(ctx, org, id, resp); ok {
			b.notReady.Put(id, struct{}{})
			return backend.ProofRecord{}, &backend.ConflictError{State: state}
		}
	}
	if resp.Status/100 != 2 {
		return backend.ProofRecord{}, b.client.StatusError(call, resp, true)
	}
	b.notReady.Delete(id)
	rec, err := b.recordAnswer(call, resp.Body, id)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if rec.State == "deleted" {
		// A record created elsewhere with auto_remove: ACA-Py completed it,
		// then removed it, and answers with the state of the removal.
		rec.State = backend.StateDone
	}
	rec.OrgID = org.ID
	return rec, nil
}

// notReadyTTL is how long a record an accept found not ready is read
// before verify-presentation is tried; notReadySize bounds how many are
// remembered (a few MiB at most).
const (
	notReadyTTL  = 10 * time.Minute
	notReadySize = 16384
)

// ACA-Py: "Presentation exchange <id> in request-sent state (must be
// presentation-received)".
var wrongStateRE = regexp.MustCompile(`in ([a-z-]+) state \(must be`)

// wrongState tells whether a 400 from verify-presentation is ACA-Py's
// state check, from its message or else from the record itself.
func (b *Backend) wrongState(ctx context.Context, org backend.Org, id string, resp *agent.Response) (string, bool) {
	if m := wrongStateRE.FindStringSubmatch(agent.Message(resp.Body)); m != nil {
		return m[1], true
	}
	rec, err := b.get(ctx, org, id)
	if err != nil || rec.State == backend.StatePresentationReceived {
		return "", false
	}
	return rec.State, true
}

// get reads record id from the org's wallet. Every caller decides
// something about id from it (its state for a 409, whether the wallet
// holds it), so an answer about another record is a bad answer.
func (b *Backend) get(ctx context.Context, org backend.Org, id string) (backend.ProofRecord, error) {
	call := agent.Request{Method: http.MethodGet, Path: recordPath(id), Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	if resp.Status/100 != 2 {
		return backend.ProofRecord{}, b.client.StatusError(call, resp, true)
	}
	return b.recordAnswer(call, resp.Body, id)
}

// recordAnswer reads an answer about record id (agent.Client.RecordAnswer).
func (b *Backend) recordAnswer(call agent.Request, body []byte, id string) (backend.ProofRecord, error) {
	return b.client.RecordAnswer(call, body, id, normalize)
}

// RecordOrg returns the org that created record id through proofgate.
func (b *Backend) RecordOrg(ctx context.Context, id string) (string, error) {
	return b.owners.OrgOf(ctx, id)
}

// Interface guard: the record's tenant is known where it was remembered.
var _ backend.RecordOwnerFinder = (*Backend)(nil)

// RecordOwner returns the org that created record id through proofgate,
// the tenant and the agent it was created on (backend.RecordOwnerFinder).
func (b *Backend) RecordOwner(ctx context.Context, id string) (backend.Owner, error) {
	return b.owners.OwnerOf(ctx, id)
}

// AgentName names the agent as the owners of its records do
// (backend.AgentNamer).
func (b *Backend) AgentName() string { return b.client.Agent() }

// RecordOrgIn reports whether record id belongs to org: it was created
// through proofgate for org, or (created elsewhere) org's wallet answers
// with that record (get: an answer about another record is a bad answer,
// not "held"). Only wallet isolation makes the second answer an ownership
// proof; for a single-tenant agent shared by several orgs the caller must
// not rely on it.
func (b *Backend) RecordOrgIn(ctx context.Context, org backend.Org, id string) (bool, error) {
	return b.owners.OwnedBy(ctx, org, id, func() (bool, error) {
		if !isUUID4(id) {
			return false, nil
		}
		_, err := b.get(ctx, org, id)
		if errors.Is(err, backend.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	})
}

// credoTimeFast is credoTime for the form ACA-Py writes,
// "2021-12-31T23:59:59.123456Z" (or with a space): checked as time.Parse
// checks it (ranges, the day in its month) and cut to milliseconds as
// Format cuts them, without either. ok is false for any other form
// (FuzzCredoTime holds it to credoTime's layouts).
func credoTimeFast(s string) (string, bool) {
	if len(s) < 22 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
		s[13] != ':' || s[16] != ':' || s[19] != '.' || s[len(s)-1] != 'Z' {
		return "", false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, second := num(11, 2), num(14, 2), num(17, 2)
	frac := s[20 : len(s)-1]
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || second < 0 || second > 59 || num(20, len(frac)) < 0 {
		return "", false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	if day > days {
		return "", false
	}
	var b [24]byte
	out := append(b[:0], s[:10]...)
	out = append(out, 'T')
	out = append(out, s[11:19]...)
	out = append(out, '.')
	out = append(out, frac[:min(3, len(frac))]...)
	out = append(out, "00"[:max(0, 3-len(frac))]...)
	out = append(out, 'Z')
	return string(out), true
}
