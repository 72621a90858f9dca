package w3c

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// A did:web issuer with a P-256 key (ecdsa-rdfc-2019) served over TLS:
// the credential verifies through the resolver; trusted_issuers patterns
// match it; a key listed only under authentication cannot issue.
func TestDIDWebIssuer(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	mb, _ := did.EncodeMultikey(&key.PublicKey)
	var issuerDID string
	var fetches atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		switch r.URL.Path {
		case "/issuers/1/did.json":
			fmt.Fprintf(w, `{"id": %q, "verificationMethod": [{"id": "#key-1", "type": "Multikey", "controller": %q, "publicKeyMultibase": %q}], "assertionMethod": ["#key-1"]}`, issuerDID, issuerDID, mb)
		case "/issuers/2/did.json":
			d := strings.Replace(issuerDID, ":1", ":2", 1)
			fmt.Fprintf(w, `{"id": %q, "verificationMethod": [{"id": "#key-1", "type": "Multikey", "controller": %q, "publicKeyMultibase": %q}], "authentication": ["#key-1"]}`, d, d, mb)
		case "/issuers/4/did.json":
			// An attacker's document naming a trusted issuer (here
			// issuers:1) as the controller of the attacker's key.
			d := strings.Replace(issuerDID, ":1", ":4", 1)
			fmt.Fprintf(w, `{"id": %q, "verificationMethod": [{"id": "#key-1", "type": "Multikey", "controller": %q, "publicKeyMultibase": %q}], "assertionMethod": ["#key-1"]}`, d, issuerDID, mb)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "https://"), ":", "%3A")
	issuerDID = "did:web:" + host + ":issuers:1"
	holder := newParty(t)

	// present signs a credential of issuer with the key at method (the
	// issuer's #key-1 when method is empty).
	present := func(issuer, method string) verify.Input {
		if method == "" {
			method = issuer + "#key-1"
		}
		c := acapyCredential(issuer, holder.did)
		c["@context"] = append(c["@context"].([]any), "https://w3id.org/security/data-integrity/v2")
		s := &ldp.Signer{Canon: testCanon, Key: key, VerificationMethod: method}
		cred, err := s.Sign(context.Background(), c, ldp.SignOptions{Type: ldp.DataIntegrityProof, Cryptosuite: ldp.ECDSARDFC2019, Purpose: did.AssertionMethod})
		if err != nil {
			t.Fatal(err)
		}
		return input(t, holder.sign(t, acapyPresentation(cred), ldp.SignOptions{Purpose: did.Authentication, Challenge: testChallenge}))
	}
	attacker := strings.Replace(issuerDID, ":1", ":4", 1) + "#key-1"
	for _, tt := range []struct {
		name, issuer, method string
		trusted              []string
		reason               string
	}{
		{"did:web issuer", issuerDID, "", nil, ""},
		{"trusted by domain pattern", issuerDID, "", []string{"did:web:" + host}, ""},
		{"not trusted", issuerDID, "", []string{"did:web:other.example"}, verify.ReasonUntrustedIssuer},
		{"key not for assertion", strings.Replace(issuerDID, ":1", ":2", 1), "", nil, verify.ReasonSignature},
		{"no such DID", strings.Replace(issuerDID, ":1", ":3", 1), "", nil, verify.ReasonSignature},
		// The attacker's key, its document claiming the trusted issuer as
		// its controller: not the issuer's signature.
		{"key of another DID claiming the issuer as controller", issuerDID, attacker, []string{issuerDID}, verify.ReasonSignature},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := newTestVerifier(t, Options{TrustedIssuers: tt.trusted}, Env{HTTPClient: srv.Client()})
			in := present(tt.issuer, tt.method)
			before := fetches.Load()
			got, err := v.Verify(context.Background(), in)
			if err != nil || got.Reason != tt.reason || got.Verified != (tt.reason == "") {
				t.Fatalf("verdict %+v %v, want %q", got, err, tt.reason)
			}
			// An issuer off the trust list is refused before its key is
			// resolved: its did:web is not fetched.
			if n := fetches.Load() - before; tt.reason == verify.ReasonUntrustedIssuer && (n != 0 || got.Credentials[0].Signature != verify.Unchecked) {
				t.Fatalf("an untrusted issuer: %d fetches, signature %q; want none, %q", n, got.Credentials[0].Signature, verify.Unchecked)
			}
		})
	}
}
