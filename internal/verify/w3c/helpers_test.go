package w3c

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/jsonld"
	"github.com/proofgate/proofgate/internal/verify"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// party is an issuer or a holder with a did:key.
type party struct {
	key ed25519.PrivateKey
	did string
	vm  string
}

func newParty(t *testing.T) party {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := did.KeyDID(priv.Public())
	return party{key: priv, did: d, vm: did.KeyMethodID(d)}
}

var testCanon = func() *jsonld.Canonicalizer {
	l, err := jsonld.NewLoader("")
	if err != nil {
		panic(err)
	}
	return jsonld.NewCanonicalizer(l, jsonld.Limits{})
}()

func (p party) sign(t *testing.T, doc map[string]any, o ldp.SignOptions) map[string]any {
	t.Helper()
	if o.Type == "" {
		o.Type = ldp.Ed25519Signature2018
	}
	s := &ldp.Signer{Canon: testCanon, Key: p.key, VerificationMethod: p.vm}
	signed, err := s.Sign(context.Background(), doc, o)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// acapyCredential is shaped like what ACA-Py issues over issue-credential
// 2.0 ld_proof: credentials v1, an inline @vocab for subject terms.
func acapyCredential(issuer, subject string) map[string]any {
	return map[string]any{
		"@context": []any{
			"https://www.w3.org/2018/credentials/v1",
			map[string]any{"@vocab": "https://example.org/proofgate-test#"},
		},
		"type":              []any{"VerifiableCredential", "UniversityDegreeCredential"},
		"issuer":            issuer,
		"issuanceDate":      "2024-01-01T00:00:00Z",
		"credentialSubject": map[string]any{"id": subject, "givenName": "Alice", "degree": "BSc"},
	}
}

// acapyPresentation is shaped like ACA-Py 1.4's: the PE submission
// context, presentation_submission, a proof with our challenge and no
// domain.
func acapyPresentation(creds ...map[string]any) map[string]any {
	vcs := make([]any, len(creds))
	for i, c := range creds {
		vcs[i] = c
	}
	return map[string]any{
		"@context": []any{
			"https://www.w3.org/2018/credentials/v1",
			"https://identity.foundation/presentation-exchange/submission/v1",
		},
		"type": []any{"VerifiablePresentation", "PresentationSubmission"},
		"presentation_submission": map[string]any{
			"id": "sub-1", "definition_id": "def-1",
			"descriptor_map": []any{map[string]any{"id": "degree", "format": "ldp_vc", "path": "$.verifiableCredential[0]"}},
		},
		"verifiableCredential": vcs,
	}
}

const (
	testChallenge = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	testDomain    = "verifier.example.com"
)

func input(t *testing.T, pres any) verify.Input {
	t.Helper()
	raw, err := json.Marshal(pres)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Input{Format: Format, Presentation: raw, Challenge: testChallenge, Domain: testDomain}
}

func newTestVerifier(t *testing.T, o Options, env Env) *Verifier {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if env.Now == nil {
		env.Now = func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }
	}
	v, err := New(o, env)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// deepCopy copies decoded JSON so a test can tamper with it.
func deepCopy(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(m)
	var out map[string]any
	json.Unmarshal(raw, &out)
	return out
}

func jwtDate(t time.Time) *jwt.NumericDate { return jwt.NewNumericDate(t) }

// revokedCredential is a credential of issuer to holder whose status entry
// (StatusList2021, index 5) points at a list, served over TLS by srv,
// that revokes it. The server closes with the test.
func revokedCredential(t *testing.T, issuer, holder party) (cred map[string]any, srv *httptest.Server) {
	t.Helper()
	return revokedCredentialServed(t, issuer, holder, nil)
}

// revokedCredentialServed is revokedCredential whose list host calls
// before (when set) ahead of each answer: a slow moment, say.
func revokedCredentialServed(t *testing.T, issuer, holder party, before func()) (cred map[string]any, srv *httptest.Server) {
	t.Helper()
	bits := make([]byte, 16384)
	bits[0] = 0x80 >> 5 // index 5
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bits)
	_ = zw.Close()
	var listRaw []byte
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if before != nil {
			before()
		}
		_, _ = w.Write(listRaw)
	}))
	t.Cleanup(srv.Close)
	list := issuer.sign(t, map[string]any{
		"@context":     []any{"https://www.w3.org/2018/credentials/v1", "https://w3id.org/vc/status-list/2021/v1"},
		"id":           srv.URL + "/lists/1",
		"type":         []any{"VerifiableCredential", "StatusList2021Credential"},
		"issuer":       issuer.did,
		"issuanceDate": "2024-01-01T00:00:00Z",
		"credentialSubject": map[string]any{"id": srv.URL + "/lists/1#list", "type": "StatusList2021",
			"statusPurpose": "revocation", "encodedList": base64.RawURLEncoding.EncodeToString(gz.Bytes())},
	}, ldp.SignOptions{Purpose: did.AssertionMethod})
	listRaw, _ = json.Marshal(list)
	c := acapyCredential(issuer.did, holder.did)
	c["@context"] = append(c["@context"].([]any), "https://w3id.org/vc/status-list/2021/v1")
	c["credentialStatus"] = map[string]any{"id": srv.URL + "/lists/1#5", "type": "StatusList2021Entry",
		"statusPurpose": "revocation", "statusListIndex": "5", "statusListCredential": srv.URL + "/lists/1"}
	return issuer.sign(t, c, ldp.SignOptions{Purpose: did.AssertionMethod}), srv
}
