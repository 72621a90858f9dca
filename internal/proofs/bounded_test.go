package proofs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonlimit"
	"github.com/proofgate/proofgate/internal/pexcheck"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// nested is a document n levels deep: {"a":{"a":...{"a":"x"}...}}.
func nested(n int) any {
	var v any = "x"
	for i := 0; i < n; i++ {
		v = map[string]any{"a": v}
	}
	return v
}

// growth runs f once and returns the heap bytes and objects it allocated
// (all goroutines: background problem reports count too).
func growth(f func()) (bytes, objects uint64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// Memory bounds of one bomb message: issue #7 accepts under 50 MB; the
// bounded pipeline needs well under one.
const (
	bombMaxBytes   = 4 << 20
	bombMaxObjects = 20_000
)

// TestJSONPathBomb: a 4 KB anoncrypted presentation whose descriptor path
// is $..*..*..* over a 300-deep document costs bounded memory and work,
// however it is packed: refused before decoding when the message itself
// nests too deep, a non-answering presentation when the attachment does
// (base64) or when the path is not plain.
func TestJSONPathBomb(t *testing.T) {
	const bomb = "$..*..*..*"
	bombVP := func(inv *wallet.Invitation, depth int) map[string]any {
		p := vp(inv)
		p["presentation_submission"].(map[string]any)["descriptor_map"].([]any)[0].(map[string]any)["path"] = bomb
		p["verifiableCredential"] = []any{nested(depth)}
		return p
	}
	tests := []struct {
		name      string
		depth     int
		base64    bool
		wantErr   error  // refused before decoding
		wantState string // else handled
		want      string // in errorMessage
	}{
		{"300 deep in data.json", 300, false, ErrMalformed, "", ""},
		{"300 deep in data.base64", 300, true, nil, backend.StateAbandoned, "nests deeper than 64 levels"},
		{"50 deep, path not plain", 50, false, nil, backend.StateAbandoned, `descriptor_map[0].path "$..*..*..*" is not a plain JSONPath`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := newTestAgent(t)
			w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			msg := w.Presentation(inv, bombVP(inv, tt.depth), wallet.PresentOptions{NoService: true})
			if tt.base64 {
				att := msg["presentations~attach"].([]any)[0].(map[string]any)
				raw, _ := json.Marshal(att["data"].(map[string]any)["json"])
				att["data"] = map[string]any{"base64": base64.StdEncoding.EncodeToString(raw)}
			}
			env := w.Pack(inv, msg, true)
			if len(env) > 6<<10 {
				t.Fatalf("the bomb is %d bytes", len(env))
			}
			var got Received
			bytes, objects := growth(func() {
				got, err = a.Receive(ctx, env)
				a.wg.Wait() // the problem report (to nowhere) counts too
			})
			t.Logf("%d byte envelope: %d bytes, %d objects allocated", len(env), bytes, objects)
			if bytes > bombMaxBytes || objects > bombMaxObjects {
				t.Fatalf("one %d byte message allocated %d bytes in %d objects", len(env), bytes, objects)
			}
			rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), "nests deeper than 64 levels") || rec.State != backend.StateRequestSent {
					t.Fatalf("Receive = %+v, %v; record %s", got, err, rec.State)
				}
				return
			}
			if err != nil || got.State != tt.wantState || !strings.Contains(rec.ErrorMessage, tt.want) {
				t.Fatalf("Receive = %+v, %v; errorMessage %q", got, err, rec.ErrorMessage)
			}
		})
	}
}

// TestCopiesSerialized: copies of one presentation delivered at once are
// checked one after the other under the record's lock, and judged once.
func TestCopiesSerialized(t *testing.T) {
	for _, sameID := range []bool{true, false} {
		name := "same @id"
		if !sameID {
			name = "new @id each"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			fv := &fakeVerifier{formats: allFormats, gate: make(chan struct{})}
			a := newVerifyingAgent(t, AgentConfig{}, fv)
			w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			same := w.Present(inv, vp(inv), true)
			const n = 8
			errs := make(chan error, n)
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				env := same
				if !sameID {
					env = w.Present(inv, vp(inv), true)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := a.Receive(ctx, env)
					errs <- err
				}()
			}
			// Let every copy reach the lock while the first is verified.
			for fv.calls.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			close(fv.gate)
			wg.Wait()
			close(errs)
			ok, conflicts := 0, 0
			for err := range errs {
				switch {
				case err == nil:
					ok++
				case isConflict(err, backend.StatePresentationReceived):
					conflicts++
				default:
					t.Fatalf("Receive: %v", err)
				}
			}
			if fv.calls.Load() != 1 || fv.maxActive.Load() != 1 {
				t.Fatalf("verified %d times, %d at once", fv.calls.Load(), fv.maxActive.Load())
			}
			if sameID && ok != n || !sameID && (ok != 1 || conflicts != n-1) {
				t.Fatalf("%d accepted, %d conflicts", ok, conflicts)
			}
		})
	}
}

// underWay is a presentation whose verification has begun and never
// ends (verificationUnderWay).
type underWay struct {
	agent    *Agent
	verifier *fakeVerifier
	wallet   *wallet.T
	inv      *wallet.Invitation
	env      []byte     // the presentation's envelope
	recordID string     // its record
	first    chan error // Receive's answer, once the verification times out (2 × AdmitWait)
}

// verificationUnderWay sends a presentation to an agent whose verifier
// never answers, and returns once its verification has begun: the record
// is locked for 2 × AdmitWait.
func verificationUnderWay(t *testing.T) underWay {
	t.Helper()
	ctx := context.Background()
	u := underWay{verifier: &fakeVerifier{formats: allFormats, gate: make(chan struct{})}}
	u.agent = newVerifyingAgent(t, AgentConfig{VerifyTimeout: 2 * AdmitWait}, u.verifier)
	u.wallet = wallet.NewT(t, wallet.Options{NoEndpoint: true})
	res, err := u.agent.Service().Create(ctx, testOrg, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	u.recordID = res.ProofRecord.ID
	u.inv = u.wallet.ReadInvitation(res.InvitationURL)
	u.env = u.wallet.Present(u.inv, vp(u.inv), true)
	u.first = make(chan error, 1)
	go func() {
		_, err := u.agent.Receive(ctx, u.env)
		u.first <- err
	}()
	for u.verifier.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	return u
}

// TestCopiesWaitBounded: copies of a presentation whose verification
// outlasts AdmitWait do not queue on the record's lock: each is told to
// come back (ErrBusy, a 503) after AdmitWait, and the verification runs
// once meanwhile. (They used to wait, each holding its message, and each
// was verified again, one after another, when the first ran out of time.)
func TestCopiesWaitBounded(t *testing.T) {
	ctx := context.Background()
	u := verificationUnderWay(t)
	a, fv, env, first := u.agent, u.verifier, u.env, u.first
	const copies = 3
	errs := make(chan error, copies)
	for range copies {
		go func() {
			_, err := a.Receive(ctx, env)
			errs <- err
		}()
	}
	for range copies {
		if err := <-errs; !errors.Is(err, ErrBusy) {
			t.Fatalf("a copy waiting on the first: %v, want ErrBusy", err)
		}
	}
	if n := fv.calls.Load(); n != 1 {
		t.Fatalf("verified %d times while the first copy was verified", n)
	}
	if err := <-first; !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("the first copy: %v, want the verification's time-out", err)
	}
}

// TestProblemReportsWaitBounded: problem reports on a thread whose
// presentation is being verified do not queue on the record's lock
// either: each is told to come back (ErrBusy) after AdmitWait, and the
// record is not abandoned under the verification. (They used to wait as
// long as it took, each holding its message: a prover able to slow its
// own verification could pile up reports of up to a MiB each.)
func TestProblemReportsWaitBounded(t *testing.T) {
	ctx := context.Background()
	u := verificationUnderWay(t)
	a, w, inv, first := u.agent, u.wallet, u.inv, u.first
	const reports = 3
	errs := make(chan error, reports)
	for range reports {
		env := w.Pack(inv, wallet.ProblemReport(inv, "", map[string]any{"code": "abandoned", "en": "no"}), false)
		go func() {
			_, err := a.Receive(ctx, env)
			errs <- err
		}()
	}
	for range reports {
		if err := <-errs; !errors.Is(err, ErrBusy) {
			t.Fatalf("a problem report waiting on the verification: %v, want ErrBusy", err)
		}
	}
	if err := <-first; !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("the presentation: %v, want the verification's time-out", err)
	}
	if rec, err := a.Service().LoadRecord(ctx, u.recordID); err != nil || rec.State != backend.StateRequestSent {
		t.Fatalf("record %+v %v, want request-sent", rec.State, err)
	}
}

// TestCheckCap: at most MaxConcurrentChecks presentations are checked at
// once in the process; one more waits AdmitWait and is told to come back.
func TestCheckCap(t *testing.T) {
	ctx := context.Background()
	fv := &fakeVerifier{formats: allFormats, gate: make(chan struct{})}
	a := newVerifyingAgent(t, AgentConfig{}, fv)
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	envs := make([][]byte, MaxConcurrentChecks+1)
	for i := range envs {
		res, err := a.Service().Create(ctx, testOrg, peRequest())
		if err != nil {
			t.Fatal(err)
		}
		inv := w.ReadInvitation(res.InvitationURL)
		envs[i] = w.Present(inv, vp(inv), true)
	}
	errs := make(chan error, MaxConcurrentChecks)
	for _, env := range envs[:MaxConcurrentChecks] {
		go func() {
			_, err := a.Receive(ctx, env)
			errs <- err
		}()
	}
	for fv.active.Load() < int32(MaxConcurrentChecks) {
		time.Sleep(time.Millisecond)
	}
	if _, err := a.Receive(ctx, envs[MaxConcurrentChecks]); !errors.Is(err, ErrBusy) {
		t.Fatalf("one over the cap: %v", err)
	}
	close(fv.gate)
	for range MaxConcurrentChecks {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if fv.maxActive.Load() != int32(MaxConcurrentChecks) {
		t.Fatalf("%d checks at once", fv.maxActive.Load())
	}
	// With slots free again, the refused one goes through.
	if got, err := a.Receive(ctx, envs[MaxConcurrentChecks]); err != nil || got.State != backend.StatePresentationReceived {
		t.Fatalf("retry: %+v, %v", got, err)
	}
}

// TestOnlySenderAbandons: once a presentation is recorded, a problem
// report abandons the record only when its sender sent the presentation;
// after an anoncrypted presentation no problem report does.
func TestOnlySenderAbandons(t *testing.T) {
	report := func(inv *wallet.Invitation) map[string]any {
		return wallet.ProblemReport(inv, "", map[string]any{"code": "abandoned", "en": "changed my mind"})
	}
	tests := []struct {
		name       string
		anonPres   bool
		reporter   string // "prover", "stranger", "anon"
		wantState  string
		wantRefuse bool
	}{
		{"prover's own key", false, "prover", backend.StateAbandoned, false},
		{"another key", false, "stranger", backend.StatePresentationReceived, true},
		{"anoncrypted report", false, "anon", backend.StatePresentationReceived, true},
		{"after anoncrypt: prover's key", true, "prover", backend.StatePresentationReceived, true},
		{"after anoncrypt: anoncrypted", true, "anon", backend.StatePresentationReceived, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := newTestAgent(t)
			w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
			stranger := wallet.NewT(t, wallet.Options{NoEndpoint: true})
			res, err := a.Service().Create(ctx, testOrg, peRequest())
			if err != nil {
				t.Fatal(err)
			}
			inv := w.ReadInvitation(res.InvitationURL)
			if _, err := a.Receive(ctx, w.Present(inv, vp(inv), tt.anonPres)); err != nil {
				t.Fatal(err)
			}
			var env []byte
			switch tt.reporter {
			case "prover":
				env = w.Pack(inv, report(inv), false)
			case "stranger":
				env = stranger.Pack(inv, report(inv), false)
			default:
				env = w.Pack(inv, report(inv), true)
			}
			_, err = a.Receive(ctx, env)
			if tt.wantRefuse != errors.Is(err, ErrUnknownThread) || (!tt.wantRefuse && err != nil) {
				t.Fatalf("problem report: %v", err)
			}
			rec, _ := a.Service().LoadRecord(ctx, res.ProofRecord.ID)
			if rec.State != tt.wantState {
				t.Fatalf("record %s", rec.State)
			}
			if tt.wantState == backend.StatePresentationReceived {
				if _, err := a.Accept(ctx, testOrg, rec.ID); err != nil {
					t.Fatalf("accept after the refused report: %v", err)
				}
			}
		})
	}
	// Before any presentation, the prover may decline (anoncrypted too).
	ctx := context.Background()
	a := newTestAgent(t)
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	res, _ := a.Service().Create(ctx, testOrg, peRequest())
	inv := w.ReadInvitation(res.InvitationURL)
	if got, err := a.Receive(ctx, w.Pack(inv, report(inv), true)); err != nil || got.State != backend.StateAbandoned {
		t.Fatalf("decline: %+v, %v", got, err)
	}
}

// TestJWTCredentialDecodedOnce: 64 descriptor_map entries naming one
// jwt_vc of 20,000 values cost what one decoding costs, within the bound
// FuzzCheckPresentation holds every input of its size to (each entry
// decoded the token again: 127 MiB in 1.3 M objects).
func TestJWTCredentialDecodedOnce(t *testing.T) {
	payload := `{"vc":{"credentialSubject":{"id":"s"}},"pad":[` + strings.Repeat("1,", 19990) + `1]}`
	jwt := "eyJhbGciOiJFZERTQSJ9." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".c2ln"
	entries := strings.TrimSuffix(strings.Repeat(`{"id":"x","format":"jwt_vc","path":"$.verifiableCredential[0]"},`, MaxDescriptorMap), ",")
	pres := []byte(`{"presentation_submission":{"definition_id":"d","descriptor_map":[` + entries + `]},` +
		`"verifiableCredential":["` + jwt + `"],"proof":{"challenge":"c","domain":"v.example"}}`)
	if len(pres) > fuzzMaxInput || jsonlimit.Problem(pres) != "" {
		t.Fatalf("the input is not one the fuzz bound covers: %d bytes, %q", len(pres), jsonlimit.Problem(pres))
	}
	var problems []string
	bytes, objects := growth(func() { problems = pexcheck.Check(fuzzDefinition, pres, "c", "v.example") })
	if bytes > fuzzMaxBytes || objects > fuzzMaxObjects {
		t.Fatalf("a %d byte presentation cost %d MiB in %d objects (bound %d MiB, %d objects)",
			len(pres), bytes>>20, objects, fuzzMaxBytes>>20, fuzzMaxObjects)
	}
	if len(problems) == 0 {
		t.Fatal("the credential lacks the definition's fields: want problems")
	}
}
