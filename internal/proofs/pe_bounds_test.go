package proofs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// The work of a presentation's field filters is bounded: a filter with a
// reference is not compiled (a record created before create-time
// validation refused them), each match is charged to the presentation's
// meter (MaxFilterWork, PathTimeout), each descriptor is judged once per
// credential, and a prover's number past pefilter's bounds is refused
// before any filter reads it.

const (
	recursiveFilter = `{"type":"array","items":{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}}`
	costlyPattern   = `{"type":"string","pattern":"[ab]{1000}[ab]{1000}[ab]{1000}[ab]{1000}c"}`
)

// definitionWith is a presentation definition of one descriptor
// (wa_driver_license) whose field at path has filter.
func definitionWith(path, filter string) json.RawMessage {
	return json.RawMessage(`{"id":"32f54163-7166-48f1-93d8-ff217bdb0653","input_descriptors":[{"id":"wa_driver_license","constraints":{"fields":[{"path":["` + path + `"],"filter":` + filter + `}]}}]}`)
}

// presentFor creates a record of org whose definition is def, and returns
// the record's id and an envelope presenting a credential whose subject is
// subject, its descriptor_map entry repeated to entries.
func presentFor(t *testing.T, a *Agent, org backend.Org, def json.RawMessage, subject map[string]any, entries int) (string, []byte) {
	t.Helper()
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	req := peRequest()
	req.PresentationDefinition = def
	res, err := a.Service().Create(context.Background(), org, req)
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	subject["id"] = "did:example:holder"
	p := wallet.UnsignedVP(inv, wallet.Submitted{DescriptorID: "wa_driver_license", Credential: wallet.UnsignedCredential(subject)})
	sub := p["presentation_submission"].(map[string]any)
	dm := sub["descriptor_map"].([]any)
	for len(dm) < entries {
		dm = append(dm, dm[0])
	}
	sub["descriptor_map"] = dm
	return res.ProofRecord.ID, w.Pack(inv, w.Presentation(inv, p, wallet.PresentOptions{NoService: true}), true)
}

// receiveTimed has a check the presentation presentFor makes, and returns
// the record, failing when Receive has not returned after limit.
func receiveTimed(t *testing.T, a *Agent, org backend.Org, def json.RawMessage, subject map[string]any, entries int, limit time.Duration) backend.ProofRecord {
	t.Helper()
	ctx := context.Background()
	id, env := presentFor(t, a, org, def, subject, entries)
	done := make(chan error, 1)
	start := time.Now()
	go func() { _, err := a.Receive(ctx, env); done <- err }()
	select {
	case err := <-done:
		t.Logf("Receive of a %d-byte envelope: %v after %v", len(env), err, time.Since(start))
	case <-time.After(limit):
		t.Fatalf("Receive of one %d-byte presentation still running after %v: its check slot, the record's lock and a CPU stay taken", len(env), limit)
	}
	rec, err := a.Service().LoadRecord(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// nestedArrays is 1 inside depth arrays.
func nestedArrays(depth int) any {
	var v any = 1
	for range depth {
		v = []any{v}
	}
	return v
}

// TestRecursiveFilterIsNotEvaluated: a record whose filter refers to
// itself under anyOf (accepted at create time before) costs 2^depth
// schema evaluations for a value depth arrays deep: a 1 KB presentation
// of 24 levels held Receive for minutes. The filter is not compiled now,
// and the presentation fails at once, saying so.
func TestRecursiveFilterIsNotEvaluated(t *testing.T) {
	a := newTestAgent(t)
	rec := receiveTimed(t, a, testOrg, definitionWith("$.credentialSubject.dateOfBirth", recursiveFilter),
		map[string]any{"dateOfBirth": nestedArrays(24)}, 1, 5*time.Second)
	if !strings.Contains(rec.ErrorMessage, "does not compile: it refers to a schema ($ref at /items/anyOf/0/$ref)") {
		t.Fatalf("record %s, errorMessage %q: want the filter that does not compile named", rec.State, rec.ErrorMessage)
	}
}

// TestRecursiveFiltersDoNotHoldEveryCheckSlot: MaxConcurrentChecks
// presentations against a recursive filter (one per record of the tenant
// that wrote it) used to hold every checking slot of the process for
// good, and another org's honest presentation was refused (ErrBusy, 503).
func TestRecursiveFiltersDoNotHoldEveryCheckSlot(t *testing.T) {
	a := newTestAgent(t)
	ctx := context.Background()
	def := definitionWith("$.credentialSubject.dateOfBirth", recursiveFilter)
	done := make(chan struct{}, MaxConcurrentChecks)
	for range MaxConcurrentChecks {
		_, env := presentFor(t, a, backend.Org{ID: "tenant-a"}, def, map[string]any{"dateOfBirth": nestedArrays(40)}, 1)
		go func() {
			a.Receive(ctx, env) //nolint:errcheck // only its duration counts
			done <- struct{}{}
		}()
	}
	timeout := time.After(10 * time.Second)
	for range MaxConcurrentChecks {
		select {
		case <-done:
		case <-timeout:
			t.Fatalf("presentations against a recursive filter still hold checking slots after 10 s")
		}
	}
	w := wallet.NewT(t, wallet.Options{NoEndpoint: true})
	res, err := a.Service().Create(ctx, backend.Org{ID: "tenant-b"}, peRequest())
	if err != nil {
		t.Fatal(err)
	}
	inv := w.ReadInvitation(res.InvitationURL)
	env := w.Pack(inv, w.Presentation(inv, vp(inv), wallet.PresentOptions{NoService: true}), true)
	if _, err := a.Receive(ctx, env); err != nil {
		t.Fatalf("tenant-b's honest presentation: %v", err)
	}
}

// TestCostlyPatternStaysWithinTheBudget: a pattern within the documented
// 4,096 characters ([ab]{1000} four times) over one 400 KB string of a
// prover's credential is one uninterruptible regexp match of ~16 s. It is
// charged before it runs (the string's length times the pattern's
// program) and refused: the field is unmet, past the work limit.
func TestCostlyPatternStaysWithinTheBudget(t *testing.T) {
	a := newTestAgent(t)
	start := time.Now()
	rec := receiveTimed(t, a, testOrg, definitionWith("$.credentialSubject.dateOfBirth", costlyPattern),
		map[string]any{"dateOfBirth": strings.Repeat("ab", 200_000)}, 1, 10*time.Second)
	if d := time.Since(start); d > 2*PathTimeout {
		t.Fatalf("one presentation's filter check took %v, past the %v budget of its paths and filters", d, PathTimeout)
	}
	if !strings.Contains(rec.ErrorMessage, "exceeded the verifier's work limit") {
		t.Fatalf("errorMessage %q, want the work limit named", rec.ErrorMessage)
	}
}

// TestRepeatedDescriptorIsJudgedOnce: descriptor_map may name one input
// descriptor and one credential MaxDescriptorMap times (DIF does not
// forbid repeating an entry); each entry compiled the descriptor's filters
// and matched them again, 64 regexp matches of a 6 KB string. (That the
// problems of a pair are told once is internal/pexcheck's test of the
// same name.)
func TestRepeatedDescriptorIsJudgedOnce(t *testing.T) {
	a := newTestAgent(t)
	start := time.Now()
	receiveTimed(t, a, testOrg, definitionWith("$.credentialSubject.dateOfBirth", costlyPattern),
		map[string]any{"dateOfBirth": strings.Repeat("ab", 3_000)}, MaxDescriptorMap, 10*time.Second)
	if d := time.Since(start); d > 2*PathTimeout {
		t.Fatalf("a presentation naming one descriptor %d times took %v, past the %v budget", MaxDescriptorMap, d, PathTimeout)
	}
}

// TestHugeNumbersAreRefusedBeforeFilters: an ordinary age filter
// ({"type":"integer","minimum":18}) made the JSON Schema library read the
// prover's number as an exact fraction: "1e999999" (9 bytes) cost ~20 ms
// each time, and a 9 KB presentation naming the descriptor 64 times cost
// seconds of CPU. Such a number is refused before any filter reads it,
// in a JSON-LD presentation and in a JWT credential; a number a filter
// compares still is (the JWT credential and the numbers still compared
// are internal/pexcheck's test of the same name).
func TestHugeNumbersAreRefusedBeforeFilters(t *testing.T) {
	a := newTestAgent(t)
	start := time.Now()
	rec := receiveTimed(t, a, testOrg, definitionWith("$.credentialSubject.age", `{"type":"integer","minimum":18}`),
		map[string]any{"age": json.Number("1e999999")}, MaxDescriptorMap, 10*time.Second)
	if d := time.Since(start); d > PathTimeout {
		t.Fatalf("a presentation against an ordinary age filter took %v, past the %v budget", d, PathTimeout)
	}
	if !strings.Contains(rec.ErrorMessage, "has the number 1e999999 at /verifiableCredential/0/credentialSubject/age") {
		t.Fatalf("errorMessage %q, want the number and where it is", rec.ErrorMessage)
	}
}
