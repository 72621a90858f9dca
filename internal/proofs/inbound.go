package proofs

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/jsonlimit"
	"github.com/proofgate/proofgate/internal/keyseal"
	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/textcut"
)

// Inbound limits.
const (
	// maxServiceKeys caps the keys of a ~service decorator.
	maxServiceKeys = 8
	// maxErrorMessage caps a record's errorMessage taken from a message.
	maxErrorMessage = 1000
)

// Received says what Receive did, for logs.
type Received struct {
	RecordID string
	// Type is the message's @type, normalized.
	Type string
	// State is the record's state afterwards.
	State string
}

// inboundMessage is the part of a present-proof message Receive reads.
type inboundMessage struct {
	Type    string          `json:"@type"`
	ID      string          `json:"@id"`
	Thread  *Thread         `json:"~thread"`
	Service json.RawMessage `json:"~service"`
	// presentation
	Formats []AttachFormat `json:"formats"`
	Attach  []Attachment   `json:"presentations~attach"`
	// problem-report (RFC 0035); older agents send explain-ltxt
	Description json.RawMessage `json:"description"`
	ExplainLTXT string          `json:"explain-ltxt"`
}

// Receive takes one RFC 0019 envelope posted to the DIDComm endpoint: it
// decrypts it with the verifier key it names (an org key or a record's
// own key), measures the message (at most MaxMessageDepth levels and
// MaxMessageValues values, else ErrMalformed) and handles, on the thread
// of a record made for that key by this backend (madeHere),
//   - a present-proof presentation (2.0, or 1.0 for v1 records): under
//     the record's lock and within the process-wide cap on concurrent
//     checks, it is checked structurally (checkPresentation) and then by
//     the format's verifier, if one is configured. It moves the record to
//     presentation-received (isVerified true when verified, unset when no
//     verifier judged it; metadata.verification says which), or to
//     abandoned with isVerified false and an errorMessage naming what is
//     missing or why verification failed, and a problem report goes back
//     in the background. Its ~service is kept as the way back;
//   - a problem report (present-proof 2.0/1.0, notification 1.0 or
//     report-problem 1.0): the record moves to abandoned with its
//     description as errorMessage; once a presentation is recorded, only
//     from the presentation's sender (AbandonByProver).
//
// Legacy did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/ message types are taken as
// their https://didcomm.org/ equivalents. A presentation delivered again
// (same @id) after it was handled is accepted and changes nothing.
//
// Errors: ErrMalformed, ErrNotForUs, ErrUnknownThread, ErrUnsupported,
// ErrBusy (no checking slot freed up within AdmitWait),
// *backend.ConflictError (the record's state does not take the message),
// a storage error or a verification that ran out of time
// (backend.ErrUnavailable), or a verifier's failure. A presentation that
// does not answer its request or fails verification is not an error: it
// was received and handled.
func (a *Agent) Receive(ctx context.Context, envelope []byte) (Received, error) {
	var rcpt Recipient
	findKey := a.svc.RecipientFinder() // bounded storage reads per envelope
	un, err := didcomm.Unpack(envelope, func(kid string) (ed25519.PrivateKey, error) {
		r, err := findKey(ctx, kid)
		// A key sealed under a key_encryption_key we lack is another
		// local backend's on the storage: not ours, like an unknown one.
		if errors.Is(err, backend.ErrNotFound) || errors.Is(err, keyseal.ErrUnknownKey) {
			return nil, didcomm.ErrUnknownKey
		}
		if err != nil {
			return nil, err
		}
		rcpt = r
		return r.Key, nil
	})
	switch {
	case errors.Is(err, didcomm.ErrMalformed):
		return Received{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	case errors.Is(err, didcomm.ErrNotForUs), errors.Is(err, didcomm.ErrDecrypt):
		return Received{}, fmt.Errorf("%w: %w", ErrNotForUs, err)
	case err != nil:
		return Received{}, err
	}

	// Measured before it is decoded: the sender chose its shape.
	if problem := jsonlimit.Problem(un.Message); problem != "" {
		return Received{}, fmt.Errorf("%w: the message %s", ErrMalformed, problem)
	}
	var msg inboundMessage
	if err := json.Unmarshal(un.Message, &msg); err != nil {
		return Received{}, fmt.Errorf("%w: the message is not a JSON object of the expected shape", ErrMalformed)
	}
	typ := didcomm.NormalizeType(msg.Type)
	mt, ok := didcomm.ParseType(typ)
	if !ok {
		return Received{}, fmt.Errorf("%w: @type %q", ErrUnsupported, msg.Type)
	}
	var recordID string
	switch {
	case msg.Thread != nil && msg.Thread.ThID != "":
		recordID, ok = RecordIDForThreadID(msg.Thread.ThID)
	case msg.Thread != nil && msg.Thread.PThID != "" && mt.Name == "problem-report":
		// A wallet that declines the invitation itself answers on the
		// invitation's thread: a problem report with ~thread.pthid alone
		// (RFC 0434). It is checked as any message of the record is.
		recordID, ok = RecordIDForInvitationID(msg.Thread.PThID)
	default:
		return Received{}, fmt.Errorf("%w: no ~thread.thid", ErrUnknownThread)
	}
	if !ok {
		return Received{}, ErrUnknownThread
	}
	doc, err := a.svc.Load(ctx, recordID)
	if errors.Is(err, backend.ErrNotFound) || errors.Is(err, keyseal.ErrUnknownKey) {
		// (A record whose key we cannot open is another backend's.)
		return Received{}, ErrUnknownThread
	}
	if err != nil {
		return Received{}, err
	}
	// The thread must belong to the key the envelope was for: the verkey
	// the record's invitation advertised (an org's key serves all its
	// records; a record's own key only that record), and to the
	// invitation the wallet answered, when it names one.
	if doc.Key.Verkey != un.RecipientVerkey || doc.Record.OrgID != rcpt.OrgID ||
		(rcpt.RecordID != "" && rcpt.RecordID != doc.Record.ID) {
		return Received{}, ErrUnknownThread
	}
	if msg.Thread.PThID != "" && msg.Thread.PThID != doc.InvitationID {
		return Received{}, ErrUnknownThread
	}
	// And to this backend: another local backend on the storage (another
	// site) sees the record and its keys, but its policy (verifiers,
	// trusted issuers, invitation_ttl, the outbound guard) is not the
	// record's. Answered as any thread of nobody's, so that a site's
	// endpoint tells nothing of another's records.
	if !a.svc.madeHere(doc) {
		return Received{}, ErrUnknownThread
	}
	// After an authcrypted presentation, only its sender speaks on the
	// thread.
	if doc.TheirVerkey != "" && un.SenderVerkey != doc.TheirVerkey {
		return Received{}, ErrUnknownThread
	}

	wantMajor := "2"
	if doc.Record.ProtocolVersion == backend.ProtocolV1 {
		wantMajor = "1"
	}
	res := Received{RecordID: doc.Record.ID, Type: typ}
	switch {
	case mt.Protocol == "present-proof" && mt.Major == wantMajor && mt.Name == "presentation":
		res.State, err = a.receivePresentation(ctx, doc, &msg, un)
	case mt.Name == "problem-report" && ((mt.Protocol == "present-proof" && mt.Major == wantMajor) ||
		(mt.Protocol == "notification" && mt.Major == "1") || (mt.Protocol == "report-problem" && mt.Major == "1")):
		res.State, err = a.receiveProblemReport(ctx, doc, &msg, un.SenderVerkey)
	default:
		return Received{}, fmt.Errorf("%w: %s on a present-proof %s record", ErrUnsupported, typ, doc.Record.ProtocolVersion)
	}
	if err != nil {
		return Received{}, err
	}
	return res, nil
}

// madeHere reports whether doc is this backend's to judge: its DIDComm
// endpoint is the one the record's invitation advertised (a reload that
// changed the policy still serves the records made before it), or both
// name the same policy (instances of a cluster configured alike, each
// advertising its own endpoint). Another site on the storage, with its
// own endpoint and policy, is neither.
func (s *Service) madeHere(doc *Doc) bool {
	return doc.endpoint() == s.cfg.Endpoint || (s.cfg.Policy != "" && doc.Policy == s.cfg.Policy)
}

// endpoint is the DIDComm endpoint of the backend that made doc. A record
// stored before Doc.Endpoint existed has it in its invitation, whose
// service was built from the same Config.Endpoint; "" (no backend's) for
// one whose invitation names none, which Create never wrote.
func (d *Doc) endpoint() string {
	if d.Endpoint != "" {
		return d.Endpoint
	}
	var inv struct {
		Services []struct {
			ServiceEndpoint string `json:"serviceEndpoint"`
		} `json:"services"`
	}
	if json.Unmarshal(d.Invitation, &inv) != nil || len(inv.Services) == 0 {
		return ""
	}
	return inv.Services[0].ServiceEndpoint
}

// parseService reads a ~service decorator; nil when there is none. Keys
// are normalized to base58 verkeys (some agents write did:key).
func parseService(raw json.RawMessage) (*ServiceDecorator, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var s struct {
		RecipientKeys   []string `json:"recipientKeys"`
		RoutingKeys     []string `json:"routingKeys"`
		ServiceEndpoint string   `json:"serviceEndpoint"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%w: ~service is not a service decorator", ErrMalformed)
	}
	if len(s.RecipientKeys) == 0 || len(s.RecipientKeys) > maxServiceKeys || len(s.RoutingKeys) > maxServiceKeys {
		return nil, fmt.Errorf("%w: ~service needs 1 to %d recipientKeys and at most %d routingKeys", ErrMalformed, maxServiceKeys, maxServiceKeys)
	}
	if s.ServiceEndpoint == "" || len(s.ServiceEndpoint) > maxEndpoint {
		return nil, fmt.Errorf("%w: ~service has no usable serviceEndpoint", ErrMalformed)
	}
	out := &ServiceDecorator{RecipientKeys: []string{}, RoutingKeys: []string{}, ServiceEndpoint: s.ServiceEndpoint}
	for _, k := range s.RecipientKeys {
		vk, err := didcomm.Verkey(k)
		if err != nil {
			return nil, fmt.Errorf("%w: ~service recipient key %q", ErrMalformed, k)
		}
		out.RecipientKeys = append(out.RecipientKeys, vk)
	}
	for _, k := range s.RoutingKeys {
		vk, err := didcomm.Verkey(k)
		if err != nil {
			return nil, fmt.Errorf("%w: ~service routing key %q", ErrMalformed, k)
		}
		out.RoutingKeys = append(out.RoutingKeys, vk)
	}
	return out, nil
}

// receivePresentation records a presentation: ReceivePresentation judges
// it under the record's lock (a.judge: structural check, then the
// format's verifier) and moves the record; a failed judgement sends a
// problem report back in the background.
func (a *Agent) receivePresentation(ctx context.Context, doc *Doc, msg *inboundMessage, un didcomm.Unpacked) (string, error) {
	if doc.Record.State != backend.StateRequestSent && !sameMessage(doc.Presentation, msg.ID) {
		// Cheap refusal on the stale read; ReceivePresentation decides.
		return "", &backend.ConflictError{State: doc.Record.State}
	}
	theirs, err := parseService(msg.Service)
	if err != nil {
		return "", err
	}
	if state, expired, err := a.refuseExpired(ctx, doc, theirs, un.SenderVerkey); expired {
		return state, err
	}
	p := Presentation{Message: un.Message, TheirService: theirs, TheirVerkey: un.SenderVerkey}
	var judged bool
	var verdict Judgement
	var judgeErr error
	updated, j, err := a.svc.ReceivePresentation(ctx, doc.Record.ID, msg.ID, p, func(d *Doc) (Judgement, error) {
		verdict, judgeErr = a.judge(ctx, d, msg)
		judged = true
		return verdict, judgeErr
	})
	// Counted once recorded (or when the judging itself failed): a
	// verdict whose record could not be written is judged again when the
	// prover sends it again, and counted then.
	if judged && (err == nil || (judgeErr != nil && errors.Is(err, judgeErr))) {
		countVerdict(verdict, judgeErr)
	}
	if errors.Is(err, errDelivered) {
		return updated.Record.State, nil // delivered again
	}
	if err != nil {
		return "", err
	}
	if j.Failed() {
		a.reportProblem(ctx, updated, j.ProverExplanation())
		return updated.Record.State, nil
	}
	return a.autoAccept(ctx, updated.Record), nil
}

// countVerdict records a judgement (judge runs once per presentation, under
// the record's lock, and is counted once its record is written) in the metrics: the format family and verified (signatures checked), answers_request (conforms, no verifier
// for the format), rejected, or error (the verifier could not judge).
func countVerdict(j Judgement, err error) {
	format := "w3c"
	switch {
	case j.Format == "":
		format = "other" // unreadable before its format was known
	case strings.HasPrefix(j.Format, "hlindy/"):
		format = "indy"
	case strings.HasPrefix(j.Format, "anoncreds/"):
		format = "anoncreds"
	case strings.HasPrefix(j.Format, "dif/"):
		format = "dif"
	}
	outcome := metrics.AnswersRequest
	switch {
	case err != nil:
		outcome = metrics.Error
	case len(j.Problems) > 0 || (j.Verdict != nil && !j.Verdict.Verified):
		outcome = metrics.Rejected
	case j.Verdict != nil:
		outcome = metrics.Verified
	}
	metrics.Verification(format, outcome)
}

// sameMessage reports whether stored is a message with @id id.
func sameMessage(stored json.RawMessage, id string) bool {
	if len(stored) == 0 || id == "" {
		return false
	}
	var m struct {
		ID string `json:"@id"`
	}
	return json.Unmarshal(stored, &m) == nil && m.ID == id
}

// receiveProblemReport abandons the record on the prover's word; once a
// presentation is recorded, only its sender's (AbandonByProver).
func (a *Agent) receiveProblemReport(ctx context.Context, doc *Doc, msg *inboundMessage, sender string) (string, error) {
	text := problemText(msg)
	rec, err := a.svc.AbandonByProver(ctx, doc.Record.ID, sender, text)
	if err != nil {
		return "", err
	}
	return rec.State, nil
}

// problemText is the errorMessage of a problem report, as Credo writes
// it: "<code>: <en>".
func problemText(msg *inboundMessage) string {
	var d struct {
		Code string `json:"code"`
		En   string `json:"en"`
	}
	var text string
	if json.Unmarshal(msg.Description, &d) == nil && (d.Code != "" || d.En != "") {
		switch {
		case d.Code != "" && d.En != "":
			text = d.Code + ": " + d.En
		case d.Code != "":
			text = d.Code
		default:
			text = d.En
		}
	} else {
		var s string
		if json.Unmarshal(msg.Description, &s) == nil && s != "" {
			text = s
		} else {
			text = msg.ExplainLTXT
		}
	}
	if text == "" {
		text = "problem report without a description"
	}
	return textcut.Prefix("problem report from the prover: "+text, maxErrorMessage)
}
