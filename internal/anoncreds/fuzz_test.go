package anoncreds

import (
	"context"
	"testing"
)

// FuzzVerify: whatever a prover sends, Verify returns a verdict (never
// panics), and a verified verdict has no problems and no unchecked
// revocation (the corpus registry has no accept option set).
func FuzzVerify(f *testing.F) {
	for _, name := range []string{"typical", "names-group", "self-attested", "pred-le-negative-at-bound"} {
		tc := corpusCaseNamed(f, name)
		f.Add([]byte(tc.Request), []byte(tc.Presentation))
	}
	v := &Verifier{Resolver: loadRegistry(f)}
	f.Fuzz(func(t *testing.T, req, pres []byte) {
		got := v.Verify(context.Background(), req, pres)
		if got.Verified && (got.Reason != "" || got.Revocation == RevocationUnchecked) {
			t.Fatalf("verified with %+v", got)
		}
		if !got.Verified && got.Reason == "" {
			t.Fatalf("refused without a reason: %+v", got)
		}
	})
}
