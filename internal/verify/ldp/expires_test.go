package ldp

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/proofgate/proofgate/internal/did"
)

// A proof's "expires" (signed with the proof's options) is checked against
// the time of the verification, within the skew: past it the proof is
// refused, before it (or with no time given) it verifies. It used to be
// read and never compared.
func TestProofExpires(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	d, _ := did.KeyDID(priv.Public())
	doc := map[string]any{
		"@context":          []any{"https://www.w3.org/2018/credentials/v1", "https://w3id.org/security/data-integrity/v2", map[string]any{"@vocab": "https://example.org/vocab#"}},
		"type":              []any{"VerifiableCredential"},
		"issuer":            d,
		"issuanceDate":      "2019-01-01T00:00:00Z",
		"credentialSubject": map[string]any{"id": "did:example:holder", "name": "Alice"},
	}
	proof := map[string]any{
		"type": DataIntegrityProof, "cryptosuite": EdDSARDFC2022,
		"created": "2019-01-01T00:00:00Z", "expires": "2020-01-01T00:00:00Z",
		"verificationMethod": did.KeyMethodID(d), "proofPurpose": did.AssertionMethod,
	}
	s, _ := lookupSuite(DataIntegrityProof, EdDSARDFC2022)
	data, err := hashData(context.Background(), DefaultCanonicalizer(), s, clone(doc), clone(proof), true)
	if err != nil {
		t.Fatal(err)
	}
	proof["proofValue"] = "z" + base58.Encode(ed25519.Sign(priv, data))
	doc["proof"] = proof
	v := &Verifier{Canon: DefaultCanonicalizer(), Keys: did.NewResolver(did.Options{})}
	expires := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		at   time.Time
		want error
	}{
		{"no time given", time.Time{}, nil},
		{"before it", expires.Add(-time.Hour), nil},
		{"past it, within the skew", expires.Add(4 * time.Minute), nil},
		{"past it", expires.Add(6 * time.Minute), ErrProofExpired},
		{"years past it", time.Now(), ErrProofExpired},
	} {
		p, err := v.Verify(context.Background(), doc, VerifyOptions{Purpose: did.AssertionMethod, Safe: true, At: tt.at, Skew: 5 * time.Minute})
		if !errors.Is(err, tt.want) || (tt.want == nil && (len(p) != 1 || !p[0].Expires.Equal(expires))) {
			t.Errorf("%s: %+v %v, want %v", tt.name, p, err, tt.want)
		}
	}
}
