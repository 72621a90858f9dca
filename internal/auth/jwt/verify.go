package jwt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/auth"
)

// maxTokenSize caps the token accepted for parsing. Keycloak tokens with
// many roles reach a few kilobytes; nothing legitimate comes near this.
const maxTokenSize = 32 << 10

func (p *Provider) verify(r *http.Request, raw string) (*auth.Principal, error) {
	if len(raw) > maxTokenSize {
		return nil, &TokenError{Reason: "token too large"}
	}
	// The allow-list is enforced while parsing: a token whose header names
	// any other algorithm ("none", HS256, ...) is refused before any key
	// is looked at.
	tok, err := josejwt.ParseSigned(raw, p.algs)
	if err != nil {
		if alg := headerAlg(raw); alg != "" && !slices.Contains(p.algs, jose.SignatureAlgorithm(alg)) {
			if p.Issuer != "" {
				if iss, ok := payloadIssuer(raw); ok && iss != p.Issuer {
					// Another identity provider's token, signed as that
					// one signs: its jwt provider judges the algorithm
					// by its own list (auth.Chain).
					return nil, &TokenError{Reason: "wrong issuer", Err: auth.ErrOtherIssuer}
				}
			}
			return nil, &TokenError{Reason: "signature algorithm not allowed"}
		}
		return nil, &TokenError{Reason: "malformed token", Err: err}
	}
	if len(tok.Headers) != 1 {
		return nil, &TokenError{Reason: "malformed token"}
	}
	hdr := tok.Headers[0]
	alg := jose.SignatureAlgorithm(hdr.Algorithm)
	if p.Issuer != "" {
		// Another identity provider's token is left to the jwt provider
		// configured for it (auth.Chain), before any key is looked up;
		// its claims are checked, signed, by that provider.
		var unverified struct {
			Issuer string `json:"iss"`
		}
		if err := tok.UnsafeClaimsWithoutVerification(&unverified); err == nil && unverified.Issuer != p.Issuer {
			return nil, &TokenError{Reason: "wrong issuer", Err: auth.ErrOtherIssuer}
		}
	}

	cands := p.candidates(r.Context(), hdr.KeyID, alg)
	if len(cands) == 0 && p.remote != nil {
		// Perhaps the IdP rotated its keys: refetch (rate limited).
		if err := p.remote.refresh(r.Context()); err == nil {
			cands = p.candidates(r.Context(), hdr.KeyID, alg)
		}
	}
	if len(cands) == 0 {
		if p.remote != nil && p.remote.current() == nil && (p.static == nil || len(p.static.keys) == 0) {
			// No key set was ever fetched: the IdP is unreachable, not the
			// token wrong.
			return nil, fmt.Errorf("%w: the identity provider's keys could not be fetched", auth.ErrUnavailable)
		}
		return nil, &TokenError{Reason: "unknown signing key"}
	}

	var std josejwt.Claims
	var claims map[string]any
	verified := claimsWith(tok, cands, &std, &claims)
	if !verified && p.remote != nil && hdr.KeyID != "" && !p.remote.keys(r.Context()).hasKid(hdr.KeyID) {
		// Only kid-less keys (a PEM key_file, a JWKS key without kid) stood
		// in for this kid: perhaps the IdP rotated. Refetch (rate limited).
		if err := p.remote.refresh(r.Context()); err == nil {
			verified = claimsWith(tok, p.candidates(r.Context(), hdr.KeyID, alg), &std, &claims)
		}
	}
	if !verified {
		return nil, &TokenError{Reason: "bad signature"}
	}

	if std.Expiry == nil {
		return nil, &TokenError{Reason: "token has no exp"}
	}
	if kind := notAccessToken(hdr, claims); kind != "" {
		return nil, &TokenError{Reason: "not an access token (" + kind + ")"}
	}
	if err := std.ValidateWithLeeway(josejwt.Expected{
		Issuer:      p.Issuer,
		AnyAudience: p.Audience,
		Time:        p.now(),
	}, p.leeway); err != nil {
		return nil, &TokenError{Reason: claimsReason(err)}
	}

	principal := &auth.Principal{
		Subject: "jwt:" + subject(std, claims),
		Caller:  caller(std, claims),
		Orgs:    p.orgs(claims),
	}
	if c := p.logger.Check(zap.DebugLevel, "jwt accepted"); c != nil {
		c.Write(zap.String("subject", principal.Subject), zap.String("kid", hdr.KeyID), zap.Int("orgs", len(principal.Orgs)))
	}
	return principal, nil
}

// nonAccessTypes are the token types identity providers sign besides
// access tokens, by the header's typ (RFC 8725 explicit typing: logout
// tokens, security events, DPoP proofs) or Keycloak's typ claim (ID,
// refresh and logout tokens). Such a token, with the right issuer and
// audience (an ID token's audience is the client), is refused rather than
// taken for an access token. Anything else is left alone: most providers
// type nothing.
var nonAccessTypes = map[string]bool{
	"logout+jwt": true, "secevent+jwt": true, "dpop+jwt": true, "id_token+jwt": true,
	"id": true, "refresh": true, "offline": true, "logout": true,
}

// notAccessToken names the type of a token that says it is not an access
// token ("" when it does not).
func notAccessToken(hdr jose.Header, claims map[string]any) string {
	if typ, _ := hdr.ExtraHeaders[jose.HeaderType].(string); nonAccessTypes[strings.ToLower(typ)] {
		return "typ " + typ
	}
	if typ, _ := claims["typ"].(string); nonAccessTypes[strings.ToLower(typ)] {
		return "typ claim " + typ
	}
	return ""
}

// candidates returns the static and cached remote keys that may have
// signed the token (fetching the JWKS on first use).
func (p *Provider) candidates(ctx context.Context, kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	cands := p.static.candidates(kid, alg)
	if p.remote != nil {
		cands = append(cands, p.remote.keys(ctx).candidates(kid, alg)...)
	}
	return cands
}

// headerAlg reads the "alg" of a compact JWS header, for a precise error
// when the parser refused the token.
func headerAlg(raw string) string {
	seg, _, _ := strings.Cut(raw, ".")
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Alg
}

// payloadIssuer reads the unverified iss of a compact JWS (raw is at
// most maxTokenSize), only to pass another identity provider's token on.
func payloadIssuer(raw string) (string, bool) {
	parts := strings.SplitN(raw, ".", 4)
	if len(parts) != 3 {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", false
	}
	var c struct {
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(b, &c) != nil || c.Issuer == "" {
		return "", false
	}
	return c.Issuer, true
}

func claimsReason(err error) string {
	switch {
	case errors.Is(err, josejwt.ErrExpired):
		return "token expired"
	case errors.Is(err, josejwt.ErrNotValidYet):
		return "token not valid yet"
	case errors.Is(err, josejwt.ErrIssuedInTheFuture):
		return "token issued in the future"
	case errors.Is(err, josejwt.ErrInvalidIssuer):
		return "wrong issuer"
	case errors.Is(err, josejwt.ErrInvalidAudience):
		return "wrong audience"
	}
	return "invalid claims"
}

// caller names the token's holder for state kept per caller: its issuer
// (length-prefixed) and its sub, else its client (azp, client_id), each
// marked as what it is, so that a sub that reads "client:x" is not client
// x; empty when the token names no one.
func caller(std josejwt.Claims, claims map[string]any) string {
	if std.Subject != "" {
		return "jwt:" + strconv.Itoa(len(std.Issuer)) + ":" + std.Issuer + "sub:" + std.Subject
	}
	for _, name := range []string{"azp", "client_id"} {
		if s, ok := claims[name].(string); ok && s != "" {
			return "jwt:" + strconv.Itoa(len(std.Issuer)) + ":" + std.Issuer + "client:" + s
		}
	}
	return ""
}

// subject names the caller: "sub", or for a client-credentials token
// without one, the client ("azp", "client_id").
func subject(std josejwt.Claims, claims map[string]any) string {
	if std.Subject != "" {
		return std.Subject
	}
	for _, name := range []string{"azp", "client_id"} {
		if s, ok := claims[name].(string); ok && s != "" {
			return "client:" + s
		}
	}
	return "unknown"
}

// claimsWith reads tok's claims into std and claims with the first of
// cands whose signature verifies, and reports whether one did.
func claimsWith(tok *josejwt.JSONWebToken, cands []jose.JSONWebKey, std *josejwt.Claims, claims *map[string]any) bool {
	for _, k := range cands {
		if tok.Claims(k.Key, std, claims) == nil {
			return true
		}
	}
	return false
}
