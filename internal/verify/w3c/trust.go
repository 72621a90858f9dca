package w3c

import (
	"errors"
	"strings"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/proofgate/proofgate/internal/did"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
)

// checkTrustPattern accepts a DID, or a did:web pattern with a leading
// "*." wildcard label.
func checkTrustPattern(p string) error {
	if did.MethodName(p) == "" {
		return errors.New("not a DID")
	}
	if strings.ContainsAny(p, "#?/ ") {
		return errors.New("must be a DID, not a DID URL")
	}
	if strings.Contains(p, "*") {
		host := strings.TrimPrefix(p, "did:web:")
		if host == p || !strings.HasPrefix(host, "*.") || strings.Count(p, "*") != 1 || len(host) < 3 {
			return errors.New(`a wildcard is allowed only as "did:web:*.<domain>"`)
		}
	}
	return nil
}

// trusted reports whether issuer matches one of the patterns (any issuer
// when there are none).
func trusted(patterns []string, issuer string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if matchTrust(p, issuer) {
			return true
		}
	}
	return false
}

func matchTrust(pattern, issuer string) bool {
	if pattern == issuer {
		return true
	}
	if !strings.HasPrefix(pattern, "did:web:") || !strings.HasPrefix(issuer, "did:web:") {
		return false
	}
	pHost := strings.TrimPrefix(pattern, "did:web:")
	rest := strings.TrimPrefix(issuer, "did:web:")
	iHost, _, _ := strings.Cut(rest, ":")
	if strings.HasPrefix(pHost, "*.") {
		// *.example.com: any subdomain (not example.com itself), any path.
		suffix := pHost[1:]
		return strings.HasSuffix(iHost, suffix) && len(iHost) > len(suffix)
	}
	// did:web:example.com also trusts did:web:example.com:<path…>.
	if strings.Contains(pHost, ":") {
		return strings.HasPrefix(rest, pHost+":")
	}
	return iHost == pHost
}

// claimedIssuer is the issuer a credential claims, read before its proof
// is checked ("" when it cannot be read): the issuer of a JSON-LD
// credential, or a JWT's iss (else its vc.issuer), decoded unverified.
// Only a refusal is based on it (an issuer off the trust list); a
// credential is trusted only on the issuer its proof verified.
func claimedIssuer(c any) string {
	switch x := c.(type) {
	case map[string]any:
		return idOf(x["issuer"])
	case string:
		tok, err := jwt.ParseSigned(x, jwtvc.Algorithms)
		if err != nil {
			return ""
		}
		var claims struct {
			Issuer string `json:"iss"`
			VC     struct {
				Issuer any `json:"issuer"`
			} `json:"vc"`
		}
		if tok.UnsafeClaimsWithoutVerification(&claims) != nil {
			return ""
		}
		if claims.Issuer != "" {
			return claims.Issuer
		}
		return idOf(claims.VC.Issuer)
	}
	return ""
}
