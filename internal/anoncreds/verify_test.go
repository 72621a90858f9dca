package anoncreds

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/verify"
)

func corpusCaseNamed(t testing.TB, name string) corpusCase {
	t.Helper()
	for _, c := range loadCorpus(t).Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no corpus case %q", name)
	return corpusCase{}
}

func TestUnknownCredentialDefinition(t *testing.T) {
	reg := loadRegistry(t)
	delete(reg.defs, "did:web:issuer.example.com/cred-defs/degree")
	tc := corpusCaseNamed(t, "typical")
	got := (&Verifier{Resolver: reg}).Verify(context.Background(), tc.Request, tc.Presentation)
	if got.Verified || got.Reason != verify.ReasonUnknownCredDef ||
		len(got.Problems) != 1 || got.Problems[0] != "unknown credential definition did:web:issuer.example.com/cred-defs/degree" {
		t.Fatalf("%+v", got)
	}
}

func TestRevocationUnchecked(t *testing.T) {
	reg := loadRegistry(t)
	for _, tt := range []struct {
		name   string
		accept bool
		want   bool
	}{
		// A non-revocation proof is there: its commitments are in the
		// challenge, so nothing can be checked without pairings.
		{"revocation-proof", false, false},
		{"revocation-proof", true, false},
		// No non-revocation proof: refused as the reference refuses it,
		// unless the operator accepts unchecked revocation.
		{"revocation-missing", false, false},
		{"revocation-missing", true, true},
		// Revocation not asked, or the credential cannot be revoked.
		{"revocable-not-asked", false, true},
		{"non-revocable-asked", false, true},
	} {
		tc := corpusCaseNamed(t, tt.name)
		got := (&Verifier{Resolver: reg, AcceptUncheckedRevocation: tt.accept}).Verify(context.Background(), tc.Request, tc.Presentation)
		wantRev := RevocationUnchecked
		if strings.HasPrefix(tt.name, "revoca") && tt.name != "revocable-not-asked" {
			wantRev = RevocationUnchecked
		} else {
			wantRev = RevocationNotRequested
		}
		if got.Verified != tt.want || got.Revocation != wantRev {
			t.Errorf("%s accept=%v: %+v, want verified %v revocation %s", tt.name, tt.accept, got, tt.want, wantRev)
		}
		if got.Revocation == RevocationUnchecked && len(got.Problems) == 0 {
			t.Errorf("%s: unchecked revocation not said", tt.name)
		}
	}
}

func TestMalformedInput(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "typical")
	for name, in := range map[string][2]string{
		"request not JSON":      {"{", string(tc.Presentation)},
		"presentation not JSON": {string(tc.Request), "["},
		"nonce not a number":    {`{"nonce":"x","requested_attributes":{}}`, string(tc.Presentation)},
		"proof missing":         {string(tc.Request), `{"requested_proof":{},"identifiers":[]}`},
		"empty object":          {string(tc.Request), `{}`},
	} {
		got := v.Verify(context.Background(), []byte(in[0]), []byte(in[1]))
		if got.Verified || got.Reason == "" || len(got.Problems) == 0 {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

func TestFormatVerifier(t *testing.T) {
	fv := FormatVerifier{V: &Verifier{Resolver: loadRegistry(t)}}
	if f := fv.Formats(); len(f) != 2 {
		t.Fatal(f)
	}
	good := corpusCaseNamed(t, "typical")
	got, err := fv.Verify(context.Background(), verify.Input{Format: FormatIndyProof, Request: good.Request, Presentation: good.Presentation})
	if err != nil || !got.Verified || got.Reason != "" || len(got.Credentials) != 2 || got.Credentials[0].Signature != verify.OK {
		t.Fatalf("%+v %v", got, err)
	}
	bad := corpusCaseNamed(t, "tamper-proof-e")
	got, err = fv.Verify(context.Background(), verify.Input{Format: FormatAnonCredsProof, Request: bad.Request, Presentation: bad.Presentation})
	if err != nil || got.Verified || got.Reason != verify.ReasonSignature || got.Credentials[1].Signature != verify.Failed || len(got.Detail) > verify.MaxDetail {
		t.Fatalf("%+v %v", got, err)
	}
	raw := corpusCaseNamed(t, "tamper-raw")
	got, _ = fv.Verify(context.Background(), verify.Input{Format: FormatIndyProof, Request: raw.Request, Presentation: raw.Presentation})
	if got.Verified || got.Reason != verify.ReasonEncoding {
		t.Fatalf("%+v", got)
	}
}

// BenchmarkVerifyTypical verifies the typical proof: 2
// credentials, 5 revealed attributes, 1 predicate (corpus case
// "typical"), registry lookups from memory.
func BenchmarkVerifyTypical(b *testing.B) {
	v := &Verifier{Resolver: loadRegistry(b)}
	tc := corpusCaseNamed(b, "typical")
	b.ReportAllocs()
	for b.Loop() {
		if got := v.Verify(context.Background(), tc.Request, tc.Presentation); !got.Verified {
			b.Fatal(got)
		}
	}
}

func TestDeadlineAndWork(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "typical")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := v.Verify(ctx, tc.Request, tc.Presentation); got.Verified || got.Reason != verify.ReasonLimits {
		t.Fatalf("after the deadline: %+v", got)
	}
	// Extra predicate proofs are work the request did not ask for.
	var pres map[string]any
	if err := json.Unmarshal(tc.Presentation, &pres); err != nil {
		t.Fatal(err)
	}
	primary := pres["proof"].(map[string]any)["proofs"].([]any)[0].(map[string]any)["primary_proof"].(map[string]any)
	ge := primary["ge_proofs"].([]any)
	primary["ge_proofs"] = append(ge, ge[0], ge[0])
	more, _ := json.Marshal(pres)
	if got := v.Verify(context.Background(), tc.Request, more); got.Verified || got.Reason != verify.ReasonLimits {
		t.Fatalf("extra predicate proofs: %+v", got)
	}
}
