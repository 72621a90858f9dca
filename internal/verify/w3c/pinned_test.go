package w3c

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

var pinnedNow = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

type jwtFixture struct {
	t         *testing.T
	issuerKey *ecdsa.PrivateKey
	issuerDID string
	holder    party
	stranger  party
}

func newJWTFixture(t *testing.T) jwtFixture {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	d, _ := did.JWKDID(&k.PublicKey)
	return jwtFixture{t: t, issuerKey: k, issuerDID: d, holder: newParty(t), stranger: newParty(t)}
}

// vc is a JWT credential of the issuer about sub (the holder unless
// edited), signed with key/kid (the issuer's unless given).
func (f jwtFixture) vc(edit func(*jwtvc.Claims), key any, kid string) string {
	c := jwtvc.Claims{Issuer: f.issuerDID, Subject: f.holder.did, VC: map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1"}, "type": []any{"VerifiableCredential"},
		"credentialSubject": map[string]any{"degree": "BSc"},
	}}
	c.NotBefore = jwtDate(pinnedNow.Add(-time.Hour))
	if edit != nil {
		edit(&c)
	}
	if key == nil {
		key, kid = f.issuerKey, "#0"
	}
	tok, err := jwtvc.Sign(key, kid, c)
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

// vp is a JWT presentation of creds signed by signer, claims edited.
func (f jwtFixture) vp(signer party, edit func(*jwtvc.Claims), creds ...string) string {
	vcs := []any{}
	for _, c := range creds {
		vcs = append(vcs, c)
	}
	c := jwtvc.Claims{Issuer: signer.did, Nonce: testChallenge, Audience: []string{testDomain}, VP: map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1"}, "type": []any{"VerifiablePresentation"}, "verifiableCredential": vcs,
	}}
	if edit != nil {
		edit(&c)
	}
	tok, err := jwtvc.Sign(signer.key, signer.vm, c)
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

func TestJWTChecks(t *testing.T) {
	f := newJWTFixture(t)
	h, s := f.holder, f.stranger
	v := newTestVerifier(t, Options{}, Env{})
	for _, tt := range []struct {
		name, token, want string
	}{
		{"valid", f.vp(h, nil, f.vc(nil, nil, "")), ""},
		// A credential naming the issuer but signed by another key: forged.
		{"credential signed by a key not the issuer's", f.vp(h, nil, f.vc(nil, s.key, s.vm)), verify.ReasonSignature},
		{"vc.issuer is not iss", f.vp(h, nil, f.vc(func(c *jwtvc.Claims) { c.VC["issuer"] = s.did }, nil, "")), verify.ReasonSignature},
		// sub binds the credential to its holder: another DID cannot present it.
		{"sub is another holder", f.vp(s, nil, f.vc(nil, nil, "")), verify.ReasonHolderBinding},
		{"credential nbf in the future", f.vp(h, nil, f.vc(func(c *jwtvc.Claims) { c.NotBefore = jwtDate(pinnedNow.Add(24 * time.Hour)) }, nil, "")), verify.ReasonNotYetValid},
		{"credential exp passed, vc.expirationDate later", f.vp(h, nil, f.vc(func(c *jwtvc.Claims) {
			c.Expiry = jwtDate(pinnedNow.Add(-24 * time.Hour))
			c.VC["expirationDate"] = "2030-01-01T00:00:00Z"
		}, nil, "")), verify.ReasonExpired},
		// The presentation's own claims.
		{"presentation iss is not its signer", f.vp(s, func(c *jwtvc.Claims) { c.Issuer = h.did }, f.vc(func(c *jwtvc.Claims) { c.Subject = s.did }, nil, "")), verify.ReasonHolderBinding},
		{"presentation vp.holder is not its signer", f.vp(s, func(c *jwtvc.Claims) { c.VP["holder"] = h.did }, f.vc(func(c *jwtvc.Claims) { c.Subject = s.did }, nil, "")), verify.ReasonHolderBinding},
		{"presentation expired", f.vp(h, func(c *jwtvc.Claims) { c.Expiry = jwtDate(pinnedNow.Add(-24 * time.Hour)) }, f.vc(nil, nil, "")), verify.ReasonExpired},
		{"presentation not yet valid", f.vp(h, func(c *jwtvc.Claims) { c.NotBefore = jwtDate(pinnedNow.Add(24 * time.Hour)) }, f.vc(nil, nil, "")), verify.ReasonNotYetValid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), input(t, tt.token))
			if err != nil {
				t.Fatal(err)
			}
			if got.Reason != tt.want || got.Verified != (tt.want == "") {
				t.Fatalf("verdict verified=%v reason=%q detail=%q, want %q", got.Verified, got.Reason, got.Detail, tt.want)
			}
		})
	}
}

func TestLDPChecks(t *testing.T) {
	issuer, holder, stranger := newParty(t), newParty(t), newParty(t)
	credWith := func(edit func(map[string]any)) map[string]any {
		c := acapyCredential(issuer.did, holder.did)
		edit(c)
		return issuer.sign(t, c, ldp.SignOptions{Purpose: did.AssertionMethod})
	}
	present := func(vp map[string]any) map[string]any {
		return holder.sign(t, vp, ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge})
	}
	plain := credWith(func(map[string]any) {})
	withHolder := acapyPresentation(plain)
	withHolder["holder"] = stranger.did
	v := newTestVerifier(t, Options{}, Env{})
	for _, tt := range []struct {
		name string
		pres map[string]any
		want string
	}{
		{"valid", present(acapyPresentation(plain)), ""},
		{"presentation holder is not its signer", present(withHolder), verify.ReasonHolderBinding},
		// Both spellings present: the earlier end of validity wins.
		{"validUntil passed, expirationDate later", present(acapyPresentation(credWith(func(c map[string]any) {
			c["validUntil"] = "2025-01-01T00:00:00Z"
			c["expirationDate"] = "2030-01-01T00:00:00Z"
		}))), verify.ReasonExpired},
		// Every DID subject must be the holder, not just one.
		{"two subjects, one another DID", present(acapyPresentation(credWith(func(c map[string]any) {
			c["credentialSubject"] = []any{
				map[string]any{"id": holder.did, "givenName": "Alice"},
				map[string]any{"id": stranger.did, "givenName": "Mallory"},
			}
		}))), verify.ReasonHolderBinding},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), input(t, tt.pres))
			if err != nil {
				t.Fatal(err)
			}
			if got.Reason != tt.want || got.Verified != (tt.want == "") {
				t.Fatalf("verdict verified=%v reason=%q detail=%q, want %q", got.Verified, got.Reason, got.Detail, tt.want)
			}
		})
	}
	// No challenge asked for: nothing a proof carries can match it.
	in := input(t, present(acapyPresentation(plain)))
	in.Challenge = ""
	if got, _ := v.Verify(context.Background(), in); got.Verified || got.Reason != verify.ReasonChallenge {
		t.Fatalf("empty expected challenge: verified=%v reason=%q", got.Verified, got.Reason)
	}
}

// A path pattern trusts that path and below, not a sibling that shares
// its prefix.
func TestTrustPathPrefix(t *testing.T) {
	if matchTrust("did:web:example.com:issuers", "did:web:example.com:issuers-evil") {
		t.Fatal("did:web:example.com:issuers trusts did:web:example.com:issuers-evil")
	}
}
