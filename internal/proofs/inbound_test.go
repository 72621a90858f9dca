package proofs

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// TestReceiveAndAccept walks the whole exchange: invitation → wallet's
// presentation (over DIDComm) → presentation-received → accept → the ack
// arrives at the wallet's endpoint.
func TestReceiveAndAccept(t *testing.T) {
	v1 := indyRequest()
	v1.ProtocolVersion = backend.ProtocolV1
	ownKey := indyRequest()
	ownKey.ReuseConnection = false
	peOwnKey := peRequest()
	peOwnKey.ReuseConnection = false

	tests := []struct {
		name     string
		req      backend.OOBRequest
		anon     bool
		mediator bool
		didKeys  bool // ~service keys as did:key
		wantAck  string
	}{
		{"indy v2 authcrypt", indyRequest(), false, false, false, TypeAckV2},
		{"indy v2 anoncrypt", indyRequest(), true, false, false, TypeAckV2},
		{"pe v2 authcrypt", peRequest(), false, false, false, TypeAckV2},
		{"pe v2 anoncrypt via mediator", peRequest(), true, true, false, TypeAckV2},
		{"indy v1", v1, false, false, false, TypeAckV1},
		{"indy v2 record key", ownKey, false, false, true, TypeAckV2},
		{"pe v2 record key via mediator", peOwnKey, false, true, false, TypeAckV2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := newTestAgent(t)
			w := wallet.NewT(t, wallet.Options{Mediator: tt.mediator})
			req := tt.req
			req.AutoAcceptProof = AutoAcceptNever // accepted below, by hand
			res, err := a.Service().Create(ctx, testOrg, req)
			if err != nil {
				t.Fatal(err)
			}
			id := res.ProofRecord.ID
			inv := w.ReadInvitation(res.InvitationURL)
			var payload any = wallet.SampleIndyProof()
			if tt.req.RequestType == backend.RequestPresentationExchange {
				payload = vp(inv)
			}
			env := w.Pack(inv, w.Presentation(inv, payload, serviceOpt(w.Service(tt.didKeys))), tt.anon)

			got, err := a.Receive(ctx, env)
			if err != nil {
				t.Fatal(err)
			}
			if got.RecordID != id || got.State != backend.StatePresentationReceived {
				t.Fatalf("Receive = %+v", got)
			}
			doc, err := a.Service().Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			wantSender := w.Verkey()
			if tt.anon {
				wantSender = ""
			}
			check, _ := doc.Record.Metadata["verification"].(map[string]any)
			if doc.Record.State != backend.StatePresentationReceived || doc.Record.IsVerified != nil ||
				check["answersRequest"] != true || check["signaturesVerified"] != false ||
				doc.TheirVerkey != wantSender || doc.TheirService == nil || doc.TheirService.ServiceEndpoint != w.URL() ||
				doc.TheirService.RecipientKeys[0] != w.Verkey() || len(doc.Presentation) == 0 {
				t.Fatalf("record after presentation: %+v, service %+v", doc.Record, doc.TheirService)
			}
			w.None() // nothing goes back before the accept

			// The same delivery again changes nothing.
			if _, err := a.Receive(ctx, env); err != nil {
				t.Fatalf("second delivery: %v", err)
			}

			rec, err := a.Accept(ctx, testOrg, id)
			if err != nil {
				t.Fatal(err)
			}
			ack, _ := rec.Metadata[MetadataAck].(map[string]any)
			if rec.State != backend.StateDone || ack["sent"] != true || ack["endpoint"] != w.URL() {
				t.Fatalf("accepted record %+v", rec)
			}
			r := w.Next()
			th, _ := r.Message["~thread"].(map[string]any)
			if r.Message["@type"] != tt.wantAck || r.Message["status"] != "OK" || th["thid"] != inv.ThreadID || th["pthid"] != inv.ParentThreadID {
				t.Fatalf("ack %v", r.Message)
			}
			if r.Sender != inv.VerifierKey {
				t.Fatalf("ack authcrypted by %q, want the invitation's key %s", r.Sender, inv.VerifierKey)
			}
			if tt.mediator && len(w.Forwards()) != 1 {
				t.Fatalf("mediator saw %d forwards", len(w.Forwards()))
			}
			// A restart sees the same.
			doc, err = newTestService(t, a.Service().storage).Load(ctx, id)
			if err != nil || doc.Record.State != backend.StateDone || len(doc.Ack) == 0 {
				t.Fatalf("stored: %+v, %v", doc, err)
			}
			if _, err := a.Accept(ctx, testOrg, id); !isConflict(err, backend.StateDone) {
				t.Fatalf("second accept: %v", err)
			}
		})
	}
}

func isConflict(err error, state string) bool {
	var ce *backend.ConflictError
	return errors.As(err, &ce) && ce.State == state
}

// TestReceiveNotAnswering: a presentation that does not answer the request
// abandons the record with a message naming what is missing, and a
// problem report goes back to the wallet.
func TestReceiveNotAnswering(t *testing.T) {
	v1 := indyRequest()
	v1.ProtocolVersion = backend.ProtocolV1
	type edit func(inv *wallet.Invitation, p map[string]any)
	rp := func(p map[string]any) map[string]any { return p["requested_proof"].(map[string]any) }
	sub := func(p map[string]any) map[string]any { return p["presentation_submission"].(map[string]any) }
	tests := []struct {
		name string
		req  backend.OOBRequest
		edit edit
		want string
	}{
		{"pe: descriptor missing", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			sub(p)["descriptor_map"] = []any{}
		}, `input descriptor "wa_driver_license" is not in presentation_submission.descriptor_map`},
		{"pe: unknown descriptor", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			sub(p)["descriptor_map"] = []any{map[string]any{"id": "other", "format": "ldp_vc", "path": "$.verifiableCredential[0]"}}
		}, `descriptor_map[0] names "other"`},
		{"pe: wrong definition", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			sub(p)["definition_id"] = "another"
		}, `definition_id is "another"`},
		{"pe: path selects nothing", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			sub(p)["descriptor_map"].([]any)[0].(map[string]any)["path"] = "$.verifiableCredential[3]"
		}, "selects nothing"},
		{"pe: field missing", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			delete(p["verifiableCredential"].([]any)[0].(map[string]any)["credentialSubject"].(map[string]any), "dateOfBirth")
		}, "the credential has no $.credentialSubject.dateOfBirth"},
		{"pe: wrong challenge", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			p["proof"].(map[string]any)["challenge"] = uuid.NewString()
		}, "does not carry the request's challenge"},
		{"pe: wrong domain", peRequest(), func(_ *wallet.Invitation, p map[string]any) {
			p["proof"].(map[string]any)["domain"] = "evil.example"
		}, "does not carry the request's domain"},
		{"pe: no proof", peRequest(), func(_ *wallet.Invitation, p map[string]any) { delete(p, "proof") }, "has no proof"},
		{"pe: no submission", peRequest(), func(_ *wallet.Invitation, p map[string]any) { delete(p, "presentation_submission") }, "has no presentation_submission"},
		{"indy: attribute missing", indyRequest(), func(_ *wallet.Invitation, p map[string]any) {
			delete(rp(p)["revealed_attrs"].(map[string]any), "attr1")
		}, `requested attribute "attr1" (name) is not in the proof`},
		{"indy: predicate missing", indyRequest(), func(_ *wallet.Invitation, p map[string]any) {
			delete(rp(p)["predicates"].(map[string]any), "pred1")
		}, `requested predicate "pred1" (age >= 18) is not in the proof`},
		{"indy: self-attested restricted", indyRequest(), func(_ *wallet.Invitation, p map[string]any) {
			delete(rp(p)["revealed_attrs"].(map[string]any), "attr1")
			rp(p)["self_attested_attrs"] = map[string]any{"attr1": "Mallory"}
		}, "is self-attested but has restrictions"},
		{"indy: wrong schema", indyRequest(), func(_ *wallet.Invitation, p map[string]any) {
			p["identifiers"].([]any)[0].(map[string]any)["schema_id"] = "L5u3AaDjGhV2AjL6mwAjLm:2:other:1.0"
		}, `requested attribute "attr1": the credential does not meet its restrictions`},
		{"indy: bad sub proof index", indyRequest(), func(_ *wallet.Invitation, p map[string]any) {
			rp(p)["predicates"].(map[string]any)["pred1"] = map[string]any{"sub_proof_index": 4}
		}, "sub_proof_index is missing or out of range"},
		{"indy: not a proof", indyRequest(), func(_ *wallet.Invitation, p map[string]any) { delete(p, "requested_proof") }, "is not an AnonCreds proof"},
		{"indy v1: attribute unrevealed is fine but predicate missing", v1, func(_ *wallet.Invitation, p map[string]any) {
			rp(p)["unrevealed_attrs"] = map[string]any{"attr1": map[string]any{"sub_proof_index": 0}}
			delete(rp(p)["revealed_attrs"].(map[string]any), "attr1")
			delete(rp(p)["predicates"].(map[string]any), "pred1")
		}, `requested predicate "pred1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := newTestAgent(t)
			w := wallet.NewT(t, wallet.Options{})
			res, err := a.Service().Create(ctx, testOrg, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			payload := wallet.SampleIndyProof()
			if tt.req.RequestType == backend.RequestPresentationExchange {
				payload = vp(inv)
			}
			tt.edit(inv, payload)
			got, err := a.Receive(ctx, w.Pack(inv, w.Presentation(inv, payload, serviceOpt(w.Service(false))), false))
			if err != nil {
				t.Fatal(err)
			}
			if got.State != backend.StateAbandoned {
				t.Fatalf("Receive = %+v", got)
			}
			r := w.Next()
			a.wg.Wait() // the outcome is written after the wallet answered
			rec, err := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != backend.StateAbandoned || rec.IsVerified == nil || *rec.IsVerified || !strings.Contains(rec.ErrorMessage, tt.want) {
				t.Fatalf("record %+v\nwant errorMessage containing %q", rec, tt.want)
			}
			wantType := TypeProblemReportV2
			if tt.req.ProtocolVersion == backend.ProtocolV1 {
				wantType = TypeProblemReportV1
			}
			th, _ := r.Message["~thread"].(map[string]any)
			desc, _ := r.Message["description"].(map[string]any)
			if r.Message["@type"] != wantType || th["thid"] != inv.ThreadID || desc["code"] != ProblemCodeAbandoned || !strings.Contains(desc["en"].(string), tt.want) {
				t.Fatalf("problem report %v", r.Message)
			}
			if pr, _ := rec.Metadata[MetadataProblemReport].(map[string]any); pr["sent"] != true {
				t.Fatalf("metadata %v", rec.Metadata)
			}
			if _, err := a.Accept(ctx, testOrg, rec.ID); !isConflict(err, backend.StateAbandoned) {
				t.Fatalf("accept of abandoned: %v", err)
			}
		})
	}
}

// TestReceiveProblemReport: the wallet gives up; the record is abandoned
// with its reason, whichever spelling of problem report it uses.
func TestReceiveProblemReport(t *testing.T) {
	tests := []struct {
		name        string
		typ         string
		description any
		want        string
		pthidOnly   bool // a decline of the invitation itself (RFC 0434)
	}{
		{"present-proof 2.0", "https://didcomm.org/present-proof/2.0/problem-report", map[string]any{"code": "abandoned", "en": "user declined"}, "problem report from the prover: abandoned: user declined", false},
		{"notification 1.0", "https://didcomm.org/notification/1.0/problem-report", map[string]any{"code": "request_not_accepted"}, "problem report from the prover: request_not_accepted", false},
		{"legacy type", "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/present-proof/2.0/problem-report", map[string]any{"en": "no credential"}, "problem report from the prover: no credential", false},
		{"no description", "https://didcomm.org/present-proof/2.0/problem-report", nil, "problem report without a description", false},
		{"invitation declined (pthid alone)", "https://didcomm.org/report-problem/1.0/problem-report", map[string]any{"code": "request_not_accepted"}, "problem report from the prover: request_not_accepted", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := newTestAgent(t)
			w := wallet.NewT(t, wallet.Options{})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			thread := map[string]any{"thid": inv.ThreadID, "pthid": inv.ParentThreadID}
			if tt.pthidOnly {
				delete(thread, "thid")
			}
			msg := map[string]any{"@type": tt.typ, "@id": uuid.NewString(), "~thread": thread}
			if tt.description != nil {
				msg["description"] = tt.description
			}
			got, err := a.Receive(ctx, w.Pack(inv, msg, true))
			if err != nil || got.State != backend.StateAbandoned {
				t.Fatalf("Receive = %+v, %v", got, err)
			}
			rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
			if rec.State != backend.StateAbandoned || !strings.Contains(rec.ErrorMessage, tt.want) {
				t.Fatalf("record %+v", rec)
			}
			// A terminal record takes no more.
			if _, err := a.Receive(ctx, w.Pack(inv, msg, true)); !isConflict(err, backend.StateAbandoned) {
				t.Fatalf("second problem report: %v", err)
			}
			w.None()
		})
	}
}

// TestReceiveRejects: messages that are not for a record of ours, or not
// well formed, are refused with a typed error and change nothing.
func TestReceiveRejects(t *testing.T) {
	ctx := context.Background()
	a := newTestAgent(t)
	w := wallet.NewT(t, wallet.Options{})
	res, err := a.Service().Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	own := indyRequest()
	own.ReuseConnection = false
	res2, err := a.Service().Create(ctx, testOrg, own)
	if err != nil {
		t.Fatal(err)
	}
	inv2 := w.ReadInvitation(res2.InvitationURL)
	other := backend.Org{ID: "another-org"}
	res3, err := a.Service().Create(ctx, other, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	inv3 := w.ReadInvitation(res3.InvitationURL)

	good := func() map[string]any {
		return w.Presentation(inv, wallet.SampleIndyProof(), serviceOpt(w.Service(false)))
	}
	with := func(k string, v any) map[string]any {
		m := good()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	// encrypted to the verifier key of inv but on another record's thread
	onThread := func(target *wallet.Invitation) map[string]any {
		m := good()
		m["~thread"] = map[string]any{"thid": target.ThreadID, "pthid": target.ParentThreadID}
		return m
	}
	_, stranger, _ := didkey.Generate()
	strangerKey := didkey.Verkey(stranger.Public().(ed25519.PublicKey))
	tamper := func(env []byte) []byte {
		var e map[string]string
		_ = json.Unmarshal(env, &e)
		c := []byte(e["ciphertext"])
		if c[1] == 'A' {
			c[1] = 'B'
		} else {
			c[1] = 'A'
		}
		e["ciphertext"] = string(c)
		b, _ := json.Marshal(e)
		return b
	}
	packTo := func(key string, msg any) []byte {
		b, _ := json.Marshal(msg)
		env, err := didcomm.Pack(b, []string{key}, w.PrivateKey())
		if err != nil {
			t.Fatal(err)
		}
		return env
	}

	tests := []struct {
		name string
		env  []byte
		want error
	}{
		{"garbage", []byte("garbage"), ErrMalformed},
		{"plaintext message", []byte(`{"@type":"https://didcomm.org/present-proof/2.0/presentation"}`), ErrMalformed},
		{"tampered ciphertext", tamper(w.Pack(inv, good(), false)), ErrNotForUs},
		{"to an unknown key", packTo(strangerKey, good()), ErrNotForUs},
		{"plaintext not JSON", packTo(inv.VerifierKey, "just a string"), ErrMalformed},
		{"unknown thread", w.Pack(inv, with("~thread", map[string]any{"thid": uuid.NewString()}), false), ErrUnknownThread},
		{"thread not a uuid", w.Pack(inv, with("~thread", map[string]any{"thid": "abc"}), false), ErrUnknownThread},
		{"no thread", w.Pack(inv, with("~thread", nil), false), ErrUnknownThread},
		{"wrong pthid", w.Pack(inv, with("~thread", map[string]any{"thid": inv.ThreadID, "pthid": uuid.NewString()}), false), ErrUnknownThread},
		// pthid alone is taken from a problem report only (a decline of
		// the invitation), and only for the key's own records.
		{"presentation with pthid alone", w.Pack(inv, with("~thread", map[string]any{"pthid": inv.ParentThreadID}), false), ErrUnknownThread},
		{"decline, record key, another record", w.Pack(inv2, map[string]any{"@type": "https://didcomm.org/report-problem/1.0/problem-report", "@id": uuid.NewString(), "~thread": map[string]any{"pthid": inv.ParentThreadID}}, true), ErrUnknownThread},
		{"decline, org key, another org's record", w.Pack(inv, map[string]any{"@type": "https://didcomm.org/report-problem/1.0/problem-report", "@id": uuid.NewString(), "~thread": map[string]any{"pthid": inv3.ParentThreadID}}, true), ErrUnknownThread},
		{"org key, record with its own key", w.Pack(inv, onThread(inv2), false), ErrUnknownThread},
		{"record key, another record", w.Pack(inv2, onThread(inv), false), ErrUnknownThread},
		{"org key, another org's record", w.Pack(inv, onThread(inv3), false), ErrUnknownThread},
		{"unsupported type", w.Pack(inv, with("@type", "https://didcomm.org/trust_ping/1.0/ping"), false), ErrUnsupported},
		{"v1 presentation on a v2 record", w.Pack(inv, with("@type", "https://didcomm.org/present-proof/1.0/presentation"), false), ErrUnsupported},
		{"not a message type", w.Pack(inv, with("@type", "presentation"), false), ErrUnsupported},
		{"bad ~service", w.Pack(inv, with("~service", map[string]any{"recipientKeys": []string{"nope"}, "serviceEndpoint": "https://x"}), false), ErrMalformed},
		{"~service without keys", w.Pack(inv, with("~service", map[string]any{"serviceEndpoint": "https://x"}), false), ErrMalformed},
	}
	before := map[string][]byte{}
	for _, id := range []string{res.ProofRecord.ID, res2.ProofRecord.ID, res3.ProofRecord.ID} {
		b, _ := a.Service().records.Load(ctx, id)
		before[id] = b
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Receive(ctx, tt.env)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Receive = %+v, %v; want %v", got, err, tt.want)
			}
		})
	}
	for id, b := range before {
		after, _ := a.Service().records.Load(ctx, id)
		if string(after) != string(b) {
			t.Fatalf("record %s changed:\n%s\n%s", id, b, after)
		}
	}
	w.None()

	// A correct presentation still goes through afterwards.
	if got, err := a.Receive(ctx, w.Pack(inv, good(), false)); err != nil || got.State != backend.StatePresentationReceived {
		t.Fatalf("Receive = %+v, %v", got, err)
	}
	// Another presentation (new @id) is a conflict; so is a problem report
	// from another sender than the one that presented.
	if _, err := a.Receive(ctx, w.Pack(inv, good(), false)); !isConflict(err, backend.StatePresentationReceived) {
		t.Fatalf("second presentation: %v", err)
	}
	pr := map[string]any{"@type": "https://didcomm.org/present-proof/2.0/problem-report", "@id": "x", "~thread": map[string]any{"thid": inv.ThreadID}, "description": map[string]any{"code": "x"}}
	if _, err := a.Receive(ctx, w.Pack(inv, pr, true)); !errors.Is(err, ErrUnknownThread) {
		t.Fatalf("problem report by someone else: %v", err)
	}
	if got, err := a.Receive(ctx, w.Pack(inv, pr, false)); err != nil || got.State != backend.StateAbandoned {
		t.Fatalf("problem report by the prover: %+v, %v", got, err)
	}
}

// TestAcceptDelivery: the ack is best effort. Whatever happens on the way
// to the prover, the record is done and keeps its ack, and metadata says
// what went wrong.
func TestAcceptDelivery(t *testing.T) {
	tests := []struct {
		name         string
		allowPrivate bool
		service      func(w *wallet.T) map[string]any
		status       int
		want         string
	}{
		{"no ~service", true, func(*wallet.T) map[string]any { return nil }, http.StatusAccepted, "no-endpoint"},
		{"endpoint fails", true, func(w *wallet.T) map[string]any { return w.Service(false) }, http.StatusInternalServerError, "http-500"},
		{"websocket endpoint", true, func(w *wallet.T) map[string]any {
			s := w.Service(false)
			s["serviceEndpoint"] = "ws" + strings.TrimPrefix(w.URL(), "http")
			return s
		}, http.StatusAccepted, "bad-endpoint"},
		{"other scheme", true, func(w *wallet.T) map[string]any {
			s := w.Service(false)
			s["serviceEndpoint"] = "file:///etc/passwd"
			return s
		}, http.StatusAccepted, "bad-endpoint"},
		{"SSRF guard refuses loopback", false, func(w *wallet.T) map[string]any { return w.Service(false) }, http.StatusAccepted, "endpoint-not-public"},
		{"SSRF guard refuses localhost by name", false, func(w *wallet.T) map[string]any {
			s := w.Service(false)
			s["serviceEndpoint"] = strings.Replace(w.URL(), "127.0.0.1", "localhost", 1)
			return s
		}, http.StatusAccepted, "endpoint-not-public"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := NewAgent(newTestService(t, fileStorage(t)), AgentConfig{AllowPrivateEndpoints: tt.allowPrivate})
			t.Cleanup(a.Close)
			w := wallet.NewT(t, wallet.Options{})
			w.SetStatus(tt.status)
			res, err := a.Service().Create(ctx, testOrg, indyRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			if _, err := a.Receive(ctx, w.Pack(inv, w.Presentation(inv, wallet.SampleIndyProof(), serviceOpt(tt.service(w))), false)); err != nil {
				t.Fatal(err)
			}
			rec, err := a.Accept(ctx, testOrg, res.ProofRecord.ID)
			if err != nil {
				t.Fatal(err)
			}
			ack, _ := rec.Metadata[MetadataAck].(map[string]any)
			// Only the coarse category: no resolved addresses, no error text.
			if rec.State != backend.StateDone || ack["sent"] != false || ack["error"] != tt.want {
				t.Fatalf("record %+v", rec)
			}
			doc, _ := a.Service().Load(ctx, rec.ID)
			if len(doc.Ack) == 0 {
				t.Fatal("ack not kept")
			}
			if tt.status != http.StatusAccepted {
				w.Next() // it did arrive; the endpoint said no
			} else {
				w.None()
			}
		})
	}
}
