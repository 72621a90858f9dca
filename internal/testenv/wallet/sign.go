package wallet

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// Context URLs of the credentials and presentations the wallet signs.
const (
	ContextCredentialsV1 = "https://www.w3.org/2018/credentials/v1"
	ContextSubmission    = "https://identity.foundation/presentation-exchange/submission/v1"
	// TestVocab is the inline @vocab of ACA-Py-issued credentials: it
	// gives the subject's claims IRIs without a remote context.
	TestVocab = "https://example.org/proofgate-test#"
	// UnknownContext is a context URL no verifier has pinned.
	UnknownContext = "https://contexts.example.invalid/unknown/v1"
)

// Holder is a did:key Ed25519 identity that issues itself credentials
// and signs presentations: Ed25519Signature2018 linked-data proofs, as
// ACA-Py does, or EdDSA JWTs.
type Holder struct {
	Key ed25519.PrivateKey
	// DID is did:key:z6Mk…; VerificationMethod its only key, DID#z6Mk….
	DID, VerificationMethod string
}

// NewHolder returns a holder with key, or a fresh key when nil.
func NewHolder(key ed25519.PrivateKey) (*Holder, error) {
	if key == nil {
		var err error
		if _, key, err = didkey.Generate(); err != nil {
			return nil, err
		}
	}
	d := didkey.Encode(key.Public().(ed25519.PublicKey))
	return &Holder{Key: key, DID: d, VerificationMethod: d + "#" + strings.TrimPrefix(d, "did:key:")}, nil
}

// Holder is the wallet's own key as a did:key holder.
func (w *Wallet) Holder() *Holder {
	h, _ := NewHolder(w.priv) // cannot fail with a key
	return h
}

// CredentialOptions shape a credential a Holder issues.
type CredentialOptions struct {
	// Subject is the credentialSubject's claims; its id defaults to the
	// holder's DID (bound to whoever presents it).
	Subject map[string]any
	// SubjectID overrides the subject's id ("-" leaves it out).
	SubjectID string
	// Types are added after VerifiableCredential.
	Types []string
	// IssuanceDate defaults to an hour ago; ExpirationDate is left out
	// when zero (set it in the past for an expired credential).
	IssuanceDate, ExpirationDate time.Time
	// Contexts are added after the credentials v1 context and the test
	// @vocab.
	Contexts []any
}

// credential builds the unsigned credential.
func (h *Holder) credential(o CredentialOptions) map[string]any {
	subject := map[string]any{}
	for k, v := range o.Subject {
		subject[k] = v
	}
	switch o.SubjectID {
	case "":
		subject["id"] = h.DID
	case "-":
	default:
		subject["id"] = o.SubjectID
	}
	issued := o.IssuanceDate
	if issued.IsZero() {
		issued = time.Now().Add(-time.Hour)
	}
	ctx := append([]any{ContextCredentialsV1, map[string]any{"@vocab": TestVocab}}, o.Contexts...)
	types := append([]any{"VerifiableCredential"}, toAny(o.Types)...)
	c := map[string]any{
		"@context":          ctx,
		"id":                "urn:uuid:" + uuid.NewString(),
		"type":              types,
		"issuer":            h.DID,
		"issuanceDate":      issued.UTC().Format(time.RFC3339),
		"credentialSubject": subject,
	}
	if !o.ExpirationDate.IsZero() {
		c["expirationDate"] = o.ExpirationDate.UTC().Format(time.RFC3339)
	}
	return c
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Issue returns a credential issued and signed by h
// (Ed25519Signature2018, proofPurpose assertionMethod).
func (h *Holder) Issue(ctx context.Context, o CredentialOptions) (map[string]any, error) {
	s := &ldp.Signer{Key: h.Key, VerificationMethod: h.VerificationMethod}
	return s.Sign(ctx, h.credential(o), ldp.SignOptions{Type: ldp.Ed25519Signature2018, Purpose: "assertionMethod"})
}

// PresentationOptions shape a signed presentation.
type PresentationOptions struct {
	// Challenge overrides the invitation's challenge (a wrong one, say).
	Challenge string
	// WithDomain puts the invitation's domain in the proof; ACA-Py does
	// not, so by default there is none.
	WithDomain bool
	// Domain overrides the domain (implies WithDomain).
	Domain string
	// Holder is the presentation's holder property; h's DID by default.
	Holder string
	// SignedBy signs the presentation instead of h (a wrong holder).
	SignedBy *Holder
}

// SignedVP is a verifiable presentation answering inv with creds, shaped
// as ACA-Py sends it (credentials v1 and the submission context,
// presentation_submission, holder), signed by h (Ed25519Signature2018,
// proofPurpose authentication) with the request's challenge.
func (h *Holder) SignedVP(ctx context.Context, inv *Invitation, o PresentationOptions, creds ...Submitted) (map[string]any, error) {
	vp := vpSkeleton(inv, creds)
	vp["@context"] = []any{ContextCredentialsV1, ContextSubmission}
	vp["type"] = []any{"VerifiablePresentation", "PresentationSubmission"}
	vp["holder"] = h.DID
	if o.Holder != "" {
		vp["holder"] = o.Holder
	}
	signer := h
	if o.SignedBy != nil {
		signer = o.SignedBy
	}
	so := ldp.SignOptions{Type: ldp.Ed25519Signature2018, Purpose: "authentication", Challenge: inv.Challenge}
	if o.Challenge != "" {
		so.Challenge = o.Challenge
	}
	if o.WithDomain || o.Domain != "" {
		so.Domain = inv.Domain
		if o.Domain != "" {
			so.Domain = o.Domain
		}
	}
	s := &ldp.Signer{Key: signer.Key, VerificationMethod: signer.VerificationMethod}
	return s.Sign(ctx, vp, so)
}

// Present issues one self-signed credential per input descriptor of inv
// (claims as AutoPresentation fills them) and signs the presentation:
// what a demo holder sends.
func (h *Holder) Present(ctx context.Context, inv *Invitation, claims map[string]any) (map[string]any, error) {
	auto, err := AutoPresentation(inv, claims)
	if err != nil {
		return nil, err
	}
	sub := auto.(map[string]any)["presentation_submission"].(map[string]any)["descriptor_map"].([]any)
	vcs := auto.(map[string]any)["verifiableCredential"].([]any)
	creds := make([]Submitted, len(sub))
	for i := range sub {
		subject := vcs[i].(map[string]any)["credentialSubject"].(map[string]any)
		delete(subject, "id")
		c, err := h.Issue(ctx, CredentialOptions{Subject: subject})
		if err != nil {
			return nil, err
		}
		creds[i] = Submitted{DescriptorID: sub[i].(map[string]any)["id"].(string), Credential: c}
	}
	return h.SignedVP(ctx, inv, PresentationOptions{}, creds...)
}

// Tamper changes one claim of a signed credential (a copy) after
// signing: its proof no longer verifies.
func Tamper(cred map[string]any, claim string, value any) map[string]any {
	c := clone(cred)
	c["credentialSubject"].(map[string]any)[claim] = value
	return c
}

// WithUnknownContext adds UnknownContext to a signed document (a copy;
// add it after signing, since the wallet cannot canonicalize it either):
// a verifier that resolves only pinned contexts refuses it.
func WithUnknownContext(doc map[string]any) map[string]any {
	c := clone(doc)
	ctx, _ := c["@context"].([]any)
	c["@context"] = append(append([]any{}, ctx...), UnknownContext)
	return c
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// JWTCredential returns cred (unsigned, as built for Issue) as a jwt_vc
// issued by h: EdDSA, kid = h's verification method, the VC-JWT claims
// iss, sub, jti, nbf and exp mirrored from the credential.
func (h *Holder) JWTCredential(o CredentialOptions) (string, error) {
	c := h.credential(o)
	claims := jwtvc.Claims{Issuer: h.DID, ID: c["id"].(string)}
	if id, ok := c["credentialSubject"].(map[string]any)["id"].(string); ok {
		claims.Subject = id
	}
	issued, _ := time.Parse(time.RFC3339, c["issuanceDate"].(string))
	claims.NotBefore = jwt.NewNumericDate(issued)
	if exp, ok := c["expirationDate"].(string); ok {
		t, _ := time.Parse(time.RFC3339, exp)
		claims.Expiry = jwt.NewNumericDate(t)
	}
	claims.VC = c
	return jwtvc.Sign(h.Key, h.VerificationMethod, claims)
}

// JWTVP returns a jwt_vp answering inv with JWT credentials: the vp claim
// holds presentation_submission (descriptor paths $.verifiableCredential[i]
// into the vp claim, format jwt_vc), nonce is the challenge, aud the
// domain, iss the holder.
func (h *Holder) JWTVP(inv *Invitation, o PresentationOptions, descriptorIDs []string, jwts []string) (string, error) {
	if len(descriptorIDs) != len(jwts) {
		return "", fmt.Errorf("wallet: %d descriptor ids for %d credentials", len(descriptorIDs), len(jwts))
	}
	dm := make([]any, len(jwts))
	vcs := make([]any, len(jwts))
	for i, j := range jwts {
		dm[i] = map[string]any{"id": descriptorIDs[i], "format": "jwt_vp", "path": "$",
			"path_nested": map[string]any{"id": descriptorIDs[i], "format": "jwt_vc", "path": fmt.Sprintf("$.vp.verifiableCredential[%d]", i)}}
		vcs[i] = j
	}
	holder := h.DID
	if o.Holder != "" {
		holder = o.Holder
	}
	signer := h
	if o.SignedBy != nil {
		signer = o.SignedBy
	}
	challenge := inv.Challenge
	if o.Challenge != "" {
		challenge = o.Challenge
	}
	claims := jwtvc.Claims{
		Issuer:   holder,
		ID:       "urn:uuid:" + uuid.NewString(),
		Nonce:    challenge,
		IssuedAt: jwt.NewNumericDate(time.Now()),
		VP: map[string]any{
			"@context":             []any{ContextCredentialsV1, ContextSubmission},
			"type":                 []any{"VerifiablePresentation", "PresentationSubmission"},
			"holder":               holder,
			"verifiableCredential": vcs,
			"presentation_submission": map[string]any{
				"id": uuid.NewString(), "definition_id": inv.DefinitionID, "descriptor_map": dm,
			},
		},
	}
	if o.WithDomain || o.Domain != "" {
		claims.Audience = jwt.Audience{inv.Domain}
		if o.Domain != "" {
			claims.Audience = jwt.Audience{o.Domain}
		}
	}
	return jwtvc.Sign(signer.Key, signer.VerificationMethod, claims)
}
