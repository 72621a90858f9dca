package w3c

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

func TestLDPPresentations(t *testing.T) {
	issuer, holder, stranger := newParty(t), newParty(t), newParty(t)
	cred := issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod})
	present := func(c map[string]any, o ldp.SignOptions) map[string]any {
		if o.Purpose == "" {
			o.Purpose = did.Authentication
		}
		if o.Challenge == "" {
			o.Challenge = testChallenge
		}
		return holder.sign(t, acapyPresentation(c), o)
	}
	credWith := func(edit func(map[string]any)) map[string]any {
		c := acapyCredential(issuer.did, holder.did)
		edit(c)
		return issuer.sign(t, c, ldp.SignOptions{Purpose: did.AssertionMethod})
	}
	tamperedCred := deepCopy(t, cred)
	tamperedCred["credentialSubject"].(map[string]any)["degree"] = "PhD"
	tamperedVP := deepCopy(t, present(cred, ldp.SignOptions{}))
	tamperedVP["type"] = []any{"VerifiablePresentation"}

	tests := []struct {
		name       string
		opts       Options
		pres       map[string]any
		wantReason string
		detail     string
	}{
		{"valid, no domain (ACA-Py)", Options{}, present(cred, ldp.SignOptions{}), "", ""},
		{"valid with our domain", Options{RequireDomain: true}, present(cred, ldp.SignOptions{Domain: testDomain}), "", ""},
		{"valid, Data Integrity eddsa-rdfc-2022 credential", Options{}, present(credWith(func(c map[string]any) {
			c["@context"] = append(c["@context"].([]any), "https://w3id.org/security/data-integrity/v2")
		}), ldp.SignOptions{}), "", ""},
		{"tampered claim", Options{}, present(tamperedCred, ldp.SignOptions{}), verify.ReasonSignature, "credential 1"},
		{"tampered presentation", Options{}, tamperedVP, verify.ReasonSignature, "presentation"},
		{"expired", Options{}, present(credWith(func(c map[string]any) { c["expirationDate"] = "2025-01-01T00:00:00Z" }), ldp.SignOptions{}), verify.ReasonExpired, "expired"},
		{"expired (validUntil)", Options{}, present(credWith(func(c map[string]any) { c["validUntil"] = "2025-05-31T23:00:00Z" }), ldp.SignOptions{}), verify.ReasonExpired, ""},
		{"expired within clock skew", Options{}, present(credWith(func(c map[string]any) { c["expirationDate"] = "2025-05-31T23:57:00Z" }), ldp.SignOptions{}), "", ""},
		{"not yet valid", Options{}, present(credWith(func(c map[string]any) { c["issuanceDate"] = "2025-06-02T00:00:00Z" }), ldp.SignOptions{}), verify.ReasonNotYetValid, ""},
		{"wrong challenge", Options{}, present(cred, ldp.SignOptions{Challenge: "another"}), verify.ReasonChallenge, ""},
		{"other domain", Options{}, present(cred, ldp.SignOptions{Domain: "evil.example"}), verify.ReasonDomain, ""},
		{"no domain, require_domain", Options{RequireDomain: true}, present(cred, ldp.SignOptions{}), verify.ReasonDomain, ""},
		{"wrong holder", Options{}, stranger.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge}), verify.ReasonHolderBinding, ""},
		{"wrong holder, holder_binding off", Options{HolderBinding: "off"}, stranger.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge}), "", ""},
		{"untrusted issuer", Options{TrustedIssuers: []string{stranger.did}}, present(cred, ldp.SignOptions{}), verify.ReasonUntrustedIssuer, ""},
		{"trusted issuer", Options{TrustedIssuers: []string{"did:web:*.example.com", issuer.did}}, present(cred, ldp.SignOptions{}), "", ""},
		{"presentation signed for assertion", Options{}, present(cred, ldp.SignOptions{Purpose: did.AssertionMethod}), verify.ReasonSignature, "purpose"},
		{"credential signed by someone else", Options{}, present(stranger.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: did.AssertionMethod}), ldp.SignOptions{}), verify.ReasonSignature, ""},
		{"too many credentials", Options{MaxCredentials: 1}, holder.sign(t, acapyPresentation(cred, cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge}), verify.ReasonLimits, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newTestVerifier(t, tt.opts, Env{})
			got, err := v.Verify(context.Background(), input(t, tt.pres))
			if err != nil {
				t.Fatal(err)
			}
			if got.Reason != tt.wantReason || got.Verified != (tt.wantReason == "") || !strings.Contains(got.Detail, tt.detail) {
				raw, _ := json.Marshal(got)
				t.Fatalf("verdict %s; want reason %q (detail ~%q)", raw, tt.wantReason, tt.detail)
			}
			if got.Verified {
				c := got.Credentials[0]
				if c.Signature != verify.OK || c.Issuer != issuer.did || !c.Trusted || c.Validity != verify.OK || got.Presentation.Challenge != verify.OK {
					t.Fatalf("verified verdict lacks its checks: %+v %+v", c, got.Presentation)
				}
			}
		})
	}
}

func TestUnsupportedContext(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	v := newTestVerifier(t, Options{}, Env{})
	// Signed with a loader that knows the extra context (a real issuer
	// could), presented to a verifier that does not.
	cred := acapyCredential(issuer.did, holder.did)
	cred["@context"] = append(cred["@context"].([]any), "https://contexts.example.com/unknown/v1")
	raw, _ := json.Marshal(holderSignedRaw(t, holder, map[string]any{"@context": []any{"https://www.w3.org/2018/credentials/v1"}, "type": []any{"VerifiablePresentation"}, "verifiableCredential": []any{cred}}))
	got, _ := v.Verify(context.Background(), verify.Input{Format: Format, Presentation: raw, Challenge: testChallenge})
	if got.Verified || got.Reason != verify.ReasonContext || !strings.Contains(got.Detail, "unsupported context https://contexts.example.com/unknown/v1") {
		t.Fatalf("verdict %+v", got)
	}
}

// holderSignedRaw forges a presentation proof object without
// canonicalizing (the verifier must fail on the context before the
// signature matters).
func holderSignedRaw(t *testing.T, holder party, vp map[string]any) map[string]any {
	vp["proof"] = map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "authentication", "verificationMethod": holder.vm, "challenge": testChallenge, "created": "2025-01-01T00:00:00Z", "jws": "eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..AAAA"}
	return vp
}

// ACA-Py 1.4.0's own signed presentation (vc/vc_ld/tests/test_credential.py,
// PRESENTATION_SIGNED): its subject is did:example:456, not the holder, so
// it verifies with holder_binding off and the test contexts supplied.
func TestACAPyPresentationVector(t *testing.T) {
	raw, err := os.ReadFile("../../../testdata/acapy-ld/vp-signed-ed25519-2018.json")
	if err != nil {
		t.Fatal(err)
	}
	in := verify.Input{Format: Format, Presentation: raw, Challenge: "2b1bbff6-e608-4368-bf84-67471b27e41c"}
	v := newTestVerifier(t, Options{JSONLDContexts: "../../../testdata/acapy-ld/contexts", HolderBinding: "off"}, Env{})
	got, _ := v.Verify(context.Background(), in)
	if !got.Verified {
		t.Fatalf("verdict %+v", got)
	}
	v = newTestVerifier(t, Options{JSONLDContexts: "../../../testdata/acapy-ld/contexts"}, Env{})
	if got, _ := v.Verify(context.Background(), in); got.Reason != verify.ReasonHolderBinding {
		t.Fatalf("with holder binding: %+v", got)
	}
	v = newTestVerifier(t, Options{}, Env{})
	if got, _ := v.Verify(context.Background(), in); got.Reason != verify.ReasonContext || !strings.Contains(got.Detail, "credentials/examples/v1") {
		t.Fatalf("without the examples context: %+v", got)
	}
}

func TestJWTPresentations(t *testing.T) {
	holder := newParty(t)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	issuerDID, _ := did.JWKDID(&p256.PublicKey)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	vcJWT := func(exp time.Time) string {
		c := jwtvc.Claims{Issuer: issuerDID, Subject: holder.did, VC: map[string]any{
			"@context": []any{"https://www.w3.org/2018/credentials/v1"}, "type": []any{"VerifiableCredential"},
			"credentialSubject": map[string]any{"degree": "BSc"},
		}}
		c.NotBefore = jwtDate(now.Add(-time.Hour))
		if !exp.IsZero() {
			c.Expiry = jwtDate(exp)
		}
		tok, err := jwtvc.Sign(p256, "#0", c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	vpJWT := func(nonce string, creds ...string) string {
		vcs := []any{}
		for _, c := range creds {
			vcs = append(vcs, c)
		}
		tok, err := jwtvc.Sign(holder.key, holder.vm, jwtvc.Claims{Issuer: holder.did, Nonce: nonce, Audience: []string{testDomain}, VP: map[string]any{
			"@context": []any{"https://www.w3.org/2018/credentials/v1"}, "type": []any{"VerifiablePresentation"}, "verifiableCredential": vcs,
		}})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	v := newTestVerifier(t, Options{}, Env{})
	for _, tt := range []struct {
		name, token, want string
	}{
		{"valid", vpJWT(testChallenge, vcJWT(time.Time{})), ""},
		{"wrong nonce", vpJWT("nope", vcJWT(time.Time{})), verify.ReasonChallenge},
		{"expired credential", vpJWT(testChallenge, vcJWT(now.Add(-time.Hour))), verify.ReasonExpired},
		{"iss is not the signer", func() string {
			stranger := newParty(t)
			tok, err := jwtvc.Sign(stranger.key, stranger.vm, jwtvc.Claims{Issuer: holder.did, Nonce: testChallenge, VP: map[string]any{
				"type": []any{"VerifiablePresentation"}, "verifiableCredential": []any{vcJWT(time.Time{})},
			}})
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}(), verify.ReasonHolderBinding},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := v.Verify(context.Background(), input(t, tt.token))
			if got.Reason != tt.want || got.Verified != (tt.want == "") {
				t.Fatalf("verdict %+v, want %q", got, tt.want)
			}
			if tt.want == "" && (got.Credentials[0].Issuer != issuerDID || got.Presentation.Type != "JWT/EdDSA") {
				t.Fatalf("verdict %+v", got)
			}
		})
	}
}

// Credo's JWT fixture (testdata/credo-jwt): EdDSA did:key VP, ES256 did:jwk VC.
func TestCredoJWTVector(t *testing.T) {
	raw, _ := os.ReadFile("../../../testdata/credo-jwt/es256-did-jwk-vc-in-eddsa-did-key-vp.jwt")
	v := newTestVerifier(t, Options{}, Env{})
	in := verify.Input{Format: Format, Presentation: []byte(strings.TrimSpace(string(raw))), Challenge: "daf942ad-816f-45ee-a9fc-facd08e5abca", Domain: "example.com"}
	if got, _ := v.Verify(context.Background(), in); !got.Verified {
		t.Fatalf("verdict %+v", got)
	}
	in.Domain = "verifier.example"
	if got, _ := v.Verify(context.Background(), in); got.Reason != verify.ReasonDomain {
		t.Fatalf("other aud: %+v", got)
	}
}

func TestMalformedAndLimits(t *testing.T) {
	v := newTestVerifier(t, Options{}, Env{})
	deep := "1"
	for i := 0; i < 50; i++ {
		deep = `{"a":` + deep + `}`
	}
	for _, tt := range []struct {
		name, raw, want string
	}{
		{"not JSON", `{`, verify.ReasonMalformed},
		{"array", `[]`, verify.ReasonMalformed},
		{"no credentials", `{"type":["VerifiablePresentation"]}`, verify.ReasonMalformed},
		{"deep", `{"verifiableCredential":[` + deep + `]}`, verify.ReasonLimits},
		{"huge", `{"x":"` + strings.Repeat("a", MaxPresentationSize) + `"}`, verify.ReasonLimits},
		{"garbage JWT", `"eyJ.e30.x"`, verify.ReasonMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), verify.Input{Format: Format, Presentation: []byte(tt.raw), Challenge: testChallenge})
			if err != nil || got.Verified || got.Reason != tt.want {
				t.Fatalf("verdict %+v err %v, want %s", got, err, tt.want)
			}
		})
	}
}

func TestTrustPatterns(t *testing.T) {
	for _, tt := range []struct {
		pattern, issuer string
		want            bool
	}{
		{"did:web:example.com", "did:web:example.com", true},
		{"did:web:example.com", "did:web:example.com:issuers:1", true},
		{"did:web:example.com", "did:web:example.com.evil", false},
		{"did:web:example.com", "did:web:sub.example.com", false},
		{"did:web:*.example.com", "did:web:sub.example.com", true},
		{"did:web:*.example.com", "did:web:a.b.example.com:x", true},
		{"did:web:*.example.com", "did:web:example.com", false},
		{"did:web:*.example.com", "did:web:evilexample.com", false},
		{"did:web:example.com:issuers", "did:web:example.com:issuers:1", true},
		{"did:web:example.com:issuers", "did:web:example.com:other", false},
		{"did:key:z6Mk1", "did:key:z6Mk1", true},
		{"did:key:z6Mk1", "did:key:z6Mk2", false},
	} {
		if got := matchTrust(tt.pattern, tt.issuer); got != tt.want {
			t.Errorf("matchTrust(%s, %s) = %v", tt.pattern, tt.issuer, got)
		}
	}
	for _, bad := range []string{"example.com", "did:key:*", "did:web:foo.*.com", "did:web:example.com#key-1"} {
		if checkTrustPattern(bad) == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
}
