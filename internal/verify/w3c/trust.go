package w3c

import (
	"errors"
	"strings"

	"github.com/proofgate/proofgate/internal/did"
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
