package proofs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
	"github.com/proofgate/proofgate/internal/verify"
)

// fakeVerifier is the seam's own test double: it returns what verdict
// says and records what it was given and how many ran at once.
type fakeVerifier struct {
	formats []string
	verdict func(ctx context.Context, in verify.Input) (verify.Verdict, error)
	// gate, when set, holds every Verify until it is closed.
	gate chan struct{}

	mu     sync.Mutex
	inputs []verify.Input

	calls, active, maxActive atomic.Int32
}

func (f *fakeVerifier) Formats() []string { return f.formats }

func (f *fakeVerifier) Verify(ctx context.Context, in verify.Input) (verify.Verdict, error) {
	f.calls.Add(1)
	n := f.active.Add(1)
	defer f.active.Add(-1)
	for {
		m := f.maxActive.Load()
		if n <= m || f.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	f.mu.Unlock()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return verify.Verdict{}, ctx.Err()
		}
	}
	if f.verdict == nil {
		return verified(in), nil
	}
	return f.verdict(ctx, in)
}

func (f *fakeVerifier) lastInput(t *testing.T) verify.Input {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.inputs) == 0 {
		t.Fatal("the verifier was not called")
	}
	return f.inputs[len(f.inputs)-1]
}

func verified(in verify.Input) verify.Verdict {
	return verify.Verdict{Format: in.Format, Verified: true,
		Presentation: &verify.ProofCheck{Type: "Ed25519Signature2018", Signature: verify.OK, Challenge: verify.OK},
		Credentials:  []verify.Credential{{Issuer: "did:key:z6Mkissuer", Signature: verify.OK, Validity: verify.OK, Trusted: true}}}
}

var allFormats = []string{FormatDIFSubmission, FormatIndyProof, FormatAnonCredsProof}

// newVerifyingAgent is a test agent whose service has verifiers.
func newVerifyingAgent(t *testing.T, cfg AgentConfig, vs ...verify.Verifier) *Agent {
	t.Helper()
	s, err := New(fileStorage(t), Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Label: "Default Verifier", Verifiers: verify.NewSet(vs...)})
	if err != nil {
		t.Fatal(err)
	}
	cfg.AllowPrivateEndpoints = true
	if cfg.SendTimeout == 0 {
		cfg.SendTimeout = 5 * time.Second
	}
	a := NewAgent(s, cfg)
	t.Cleanup(a.Close)
	return a
}

// TestVerificationSeam: after the structural check the format's verifier
// judges the presentation; its verdict decides isVerified and the state.
func TestVerificationSeam(t *testing.T) {
	v1 := indyRequest()
	v1.ProtocolVersion = backend.ProtocolV1
	failed := func(_ context.Context, in verify.Input) (verify.Verdict, error) {
		v := verify.Fail(in.Format, verify.ReasonSignature, "credential 0: the signature does not verify with key did:key:z6Mk#z6Mk")
		v.Credentials = []verify.Credential{{Issuer: "did:key:z6Mk", Signature: verify.Failed, Reason: verify.ReasonSignature}}
		return v, nil
	}
	tests := []struct {
		name       string
		req        backend.OOBRequest
		formats    []string // the verifier's
		verdict    func(context.Context, verify.Input) (verify.Verdict, error)
		sendFormat string // overrides the presentation's attachment format
		edit       func(p map[string]any)
		wantState  string
		wantVerif  *bool
		wantFormat string // the format the verifier saw; "" = not called
		wantError  string
		wantReport string
	}{
		{name: "pe verified", req: peRequest(), formats: allFormats, wantState: backend.StatePresentationReceived, wantVerif: ptr(true), wantFormat: FormatDIFSubmission},
		{name: "indy v2 verified", req: indyRequest(), formats: allFormats, wantState: backend.StatePresentationReceived, wantVerif: ptr(true), wantFormat: FormatIndyProof},
		{name: "indy v1 verified", req: v1, formats: allFormats, wantState: backend.StatePresentationReceived, wantVerif: ptr(true), wantFormat: FormatIndyProof},
		{name: "anoncreds format", req: indyRequest(), formats: allFormats, sendFormat: FormatAnonCredsProof, wantState: backend.StatePresentationReceived, wantVerif: ptr(true), wantFormat: FormatAnonCredsProof},
		{name: "pe signature fails", req: peRequest(), formats: allFormats, verdict: failed, wantState: backend.StateAbandoned, wantVerif: ptr(false), wantFormat: FormatDIFSubmission,
			wantError:  "the presentation failed verification: signature (credential 0: the signature does not verify with key did:key:z6Mk#z6Mk)",
			wantReport: "the presentation failed verification: signature"},
		{name: "indy expired, no detail", req: indyRequest(), formats: allFormats, verdict: func(_ context.Context, in verify.Input) (verify.Verdict, error) {
			return verify.Verdict{Format: in.Format, Reason: verify.ReasonExpired}, nil
		}, wantState: backend.StateAbandoned, wantVerif: ptr(false), wantFormat: FormatIndyProof,
			wantError: "the presentation failed verification: expired", wantReport: "the presentation failed verification: expired"},
		{name: "no verifier for indy", req: indyRequest(), formats: []string{FormatDIFSubmission}, wantState: backend.StatePresentationReceived},
		{name: "structural failure first", req: peRequest(), formats: allFormats, edit: func(p map[string]any) {
			p["proof"].(map[string]any)["challenge"] = "not ours"
		}, wantState: backend.StateAbandoned, wantVerif: ptr(false), wantError: "does not carry the request's challenge", wantReport: "does not carry the request's challenge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fv := &fakeVerifier{formats: tt.formats, verdict: tt.verdict}
			a := newVerifyingAgent(t, AgentConfig{}, fv)
			w := wallet.NewT(t, wallet.Options{})
			res, err := a.Service().Create(ctx, testOrg, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			payload := wallet.SampleIndyProof()
			if inv.IsDIF() {
				payload = vp(inv)
			}
			if tt.edit != nil {
				tt.edit(payload)
			}
			msg := w.Presentation(inv, payload, wallet.PresentOptions{Format: tt.sendFormat})
			got, err := a.Receive(ctx, w.Pack(inv, msg, false))
			if err != nil || got.State != tt.wantState {
				t.Fatalf("Receive = %+v, %v", got, err)
			}
			var report wallet.Received
			if tt.wantReport != "" {
				report = w.Next()
				a.wg.Wait()
			}
			doc, err := a.Service().Load(ctx, res.ProofRecord.ID)
			if err != nil {
				t.Fatal(err)
			}
			rec := doc.Record
			if (rec.IsVerified == nil) != (tt.wantVerif == nil) || (rec.IsVerified != nil && *rec.IsVerified != *tt.wantVerif) {
				t.Fatalf("isVerified %v, want %v", rec.IsVerified, tt.wantVerif)
			}
			if tt.wantError != "" && !strings.Contains(rec.ErrorMessage, tt.wantError) {
				t.Fatalf("errorMessage %q, want %q", rec.ErrorMessage, tt.wantError)
			}
			if tt.wantReport != "" {
				en := report.Message["description"].(map[string]any)["en"].(string)
				if !strings.Contains(en, tt.wantReport) || strings.Contains(en, "did:key") {
					t.Fatalf("problem report says %q, want %q and no internals", en, tt.wantReport)
				}
			}
			check, _ := rec.Metadata[MetadataVerification].(map[string]any)
			switch {
			case tt.wantFormat == "":
				if fv.calls.Load() != 0 {
					t.Fatalf("the verifier was called %d times", fv.calls.Load())
				}
				if tt.wantState == backend.StatePresentationReceived && (check["signaturesVerified"] != false || !strings.Contains(check["detail"].(string), "signatures were not verified")) {
					t.Fatalf("metadata.verification %v", check)
				}
			default:
				in := fv.lastInput(t)
				if in.Format != tt.wantFormat || in.OrgID != testOrg.ID || len(in.Request) == 0 || len(in.Presentation) == 0 {
					t.Fatalf("verifier input %+v", in)
				}
				if inv.IsDIF() && (in.Challenge != inv.Challenge || in.Domain != inv.Domain || !strings.Contains(string(in.Presentation), "presentation_submission")) {
					t.Fatalf("verifier input %+v", in)
				}
				if !inv.IsDIF() && (in.Challenge != "" || !strings.Contains(string(in.Request), inv.ProofRequest.Nonce) || !strings.Contains(string(in.Presentation), "requested_proof")) {
					t.Fatalf("verifier input %+v", in)
				}
				if check["format"] != tt.wantFormat || check["verified"] != (*tt.wantVerif) || check["answersRequest"] != true || check["signaturesVerified"] != (*tt.wantVerif) {
					t.Fatalf("metadata.verification %v", check)
				}
				if creds, _ := check["credentials"].([]any); tt.verdict == nil && len(creds) != 1 {
					t.Fatalf("metadata.verification %v", check)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestVerifierFailures: a verifier that fails, panics or runs out of time
// changes nothing; the prover may deliver again.
func TestVerifierFailures(t *testing.T) {
	tests := []struct {
		name    string
		verdict func(context.Context, verify.Input) (verify.Verdict, error)
		want    func(error) bool
	}{
		{"error", func(context.Context, verify.Input) (verify.Verdict, error) {
			return verify.Verdict{}, errors.New("registry store is gone")
		}, func(err error) bool {
			return err != nil && !errors.Is(err, backend.ErrUnavailable) && strings.Contains(err.Error(), "registry store is gone")
		}},
		{"panic", func(context.Context, verify.Input) (verify.Verdict, error) {
			panic("bug")
		}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "panicked") }},
		{"deadline", func(ctx context.Context, _ verify.Input) (verify.Verdict, error) {
			<-ctx.Done()
			return verify.Verdict{}, ctx.Err()
		}, func(err error) bool { return errors.Is(err, backend.ErrUnavailable) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fv := &fakeVerifier{formats: allFormats, verdict: tt.verdict}
			a := newVerifyingAgent(t, AgentConfig{VerifyTimeout: 50 * time.Millisecond}, fv)
			w := wallet.NewT(t, wallet.Options{})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			env := w.Present(inv, vp(inv), false)
			if _, err := a.Receive(ctx, env); !tt.want(err) {
				t.Fatalf("Receive: %v", err)
			}
			rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
			if rec.State != backend.StateRequestSent || rec.IsVerified != nil {
				t.Fatalf("record %+v", rec)
			}
			w.None()
			// Delivered again once the verifier works.
			fv.verdict = nil
			if got, err := a.Receive(ctx, env); err != nil || got.State != backend.StatePresentationReceived {
				t.Fatalf("again: %+v, %v", got, err)
			}
		})
	}
}

// TestVerdictBounded: what a verdict puts on the record is capped.
func TestVerdictBounded(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("é", 5000)
	fv := &fakeVerifier{formats: allFormats, verdict: func(_ context.Context, in verify.Input) (verify.Verdict, error) {
		v := verify.Verdict{Format: "spoofed", Verified: true, Detail: long, Presentation: &verify.ProofCheck{Type: long, Signature: verify.OK}}
		for i := 0; i < 1000; i++ {
			v.Credentials = append(v.Credentials, verify.Credential{ID: long, Issuer: long, Signature: verify.OK})
		}
		return v, nil
	}}
	a := newVerifyingAgent(t, AgentConfig{}, fv)
	w := wallet.NewT(t, wallet.Options{})
	res, err := a.Service().Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	if _, err := a.Receive(ctx, w.Present(inv, vp(inv), true)); err != nil {
		t.Fatal(err)
	}
	rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
	check := rec.Metadata[MetadataVerification].(map[string]any)
	creds := check["credentials"].([]any)
	issuer := creds[0].(map[string]any)["issuer"].(string)
	b, _ := json.Marshal(check)
	if len(creds) != maxVerdictCredentials || len(issuer) > maxVerdictString || len(check["detail"].(string)) > verify.MaxDetail ||
		check["format"] != FormatDIFSubmission || len(b) > 64<<10 || *rec.IsVerified != true {
		t.Fatalf("%d credentials, issuer of %d bytes, %d bytes in all, format %v", len(creds), len(issuer), len(b), check["format"])
	}
}
