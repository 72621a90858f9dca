package w3c

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/jsonld"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// FuzzVerify: whatever a prover sends, Verify returns a verdict (never a
// panic, never an error while it has time) and never says verified for
// input it did not sign. Seeds: the repository's signed vectors.
func FuzzVerify(f *testing.F) {
	for _, p := range []string{
		"../../../testdata/acapy-ld/vp-signed-ed25519-2018.json",
		"../../../testdata/credo-jwt/es256-did-jwk-vc-in-eddsa-did-key-vp.jwt",
		"../../../testdata/w3c/vc-di-eddsa/eddsa-rdfc-2022-signedDataInt.json",
	} {
		if raw, err := os.ReadFile(p); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"verifiableCredential":[{"@context":{"@vocab":"x:"},"proof":{"type":"Ed25519Signature2018"}}],"proof":[]}`))
	f.Add([]byte(`"eyJhbGciOiJFZERTQSJ9.e30.AA"`))
	v, err := New(Options{}, Env{Keys: did.NewResolver(did.Options{})})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		got, err := v.Verify(ctx, verify.Input{Format: Format, Presentation: raw, Challenge: "fuzz-challenge"})
		if err != nil && ctx.Err() == nil {
			t.Fatalf("error without a deadline: %v", err)
		}
		if got.Verified {
			t.Fatalf("verified fuzz input %q", raw)
		}
	})
}

func TestDeadlineIsAnError(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	cred := issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod})
	pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
	v := newTestVerifier(t, Options{}, Env{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Verify(ctx, input(t, pres)); err == nil {
		t.Fatal("a verification out of time gave a verdict")
	}
}

// BenchmarkVerifyLDP: one ACA-Py-shaped presentation with one
// Ed25519Signature2018 credential (two RDF canonicalizations per proof).
func BenchmarkVerifyLDP(b *testing.B) {
	t := &testing.T{}
	issuer, holder := newParty(t), newParty(t)
	cred := issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod})
	pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
	raw, _ := json.Marshal(pres)
	v, _ := New(Options{}, Env{})
	in := verify.Input{Format: Format, Presentation: raw, Challenge: testChallenge}
	b.ReportAllocs()
	for b.Loop() {
		if got, _ := v.Verify(context.Background(), in); !got.Verified {
			b.Fatalf("%+v", got)
		}
	}
}

func TestNoCanonicalizationSlotIsAnError(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	cred := issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod})
	pres := holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
	v := newTestVerifier(t, Options{}, Env{})
	release := jsonld.OccupyWorkers()
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if got, err := v.Verify(ctx, input(t, pres)); err == nil {
		t.Fatalf("verdict %+v without a canonicalization slot", got)
	}
}
