package validate

import (
	"math/bits"
	"net/url"
	"strings"

	"github.com/proofgate/proofgate/internal/anoncreds/names"
)

// Shapes of the identifiers restrictions name. Legacy (unqualified) Indy
// identifiers are built on a 16-byte DID written in base58 (21-22
// characters):
//
//	schema       <did>:2:<name>:<version>
//	cred def     <did>:3:CL:<schema seq no or schema id>:<tag>
//	rev registry <did>:4:<cred def id>:CL_ACCUM:<tag>
//
// AnonCreds qualified identifiers are DID URLs (did:indy:..., did:cheqd:...)
// or other URIs (https://...), accepted wherever an identifier is.

// legacyDID is an unqualified Indy DID: base58 (Bitcoin alphabet) of 16
// bytes. It decodes as github.com/mr-tron/base58 does (each leading '1' a
// zero byte, then the number's significant bytes) but only counts the
// bytes, so checking an identifier allocates nothing.
func legacyDID(s string) bool {
	if len(s) < 21 || len(s) > 22 {
		return false
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// 58^22 < 2^129: five 32-bit limbs hold any 22-digit number.
	var n [5]uint64
	for i := zeros; i < len(s); i++ {
		d := base58Digits[s[i]]
		if d < 0 {
			return false
		}
		carry := uint64(d)
		for j := range n {
			carry += n[j] * 58
			n[j], carry = carry&0xffffffff, carry>>32
		}
	}
	size := 0
	for j := len(n) - 1; j >= 0; j-- {
		if n[j] != 0 {
			size = 4*j + (bits.Len64(n[j])+7)/8
			break
		}
	}
	return zeros+size == 16
}

// base58Digits maps a byte to its value in the Bitcoin base58 alphabet,
// or -1.
var base58Digits = func() (t [256]int8) {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = int8(i)
	}
	return t
}()

// isDID checks W3C DID syntax: did:<method>:<method-specific-id>, method
// [a-z0-9]+, id made of ALPHA / DIGIT / "." / "-" / "_" / ":" /
// pct-encoded, not ending in ":".
func isDID(s string) bool {
	rest, ok := strings.CutPrefix(s, "did:")
	if !ok {
		return false
	}
	method, id, ok := strings.Cut(rest, ":")
	if !ok || method == "" || id == "" || id[len(id)-1] == ':' {
		return false
	}
	for i := 0; i < len(method); i++ {
		if b := method[i]; !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9') {
			return false
		}
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case b == '.' || b == '-' || b == '_' || b == ':':
		case b == '%' && i+2 < len(id) && isHex(id[i+1]) && isHex(id[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// isDIDURL is a DID optionally followed by a path, query or fragment.
func isDIDURL(s string) bool {
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		return isDID(s)
	}
	if !isDID(s[:end]) || !cleanURI(s) {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// isURI accepts an absolute URI with an authority (scheme://host...) or a
// URN. Bare "scheme:rest" is not enough: every legacy id would pass.
func isURI(s string) bool {
	if !cleanURI(s) {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return false
	}
	if strings.EqualFold(u.Scheme, "urn") {
		return u.Opaque != ""
	}
	return u.Host != ""
}

// cleanURI refuses spaces and control characters, which url.Parse lets
// through in places.
func cleanURI(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return s != ""
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// legacyIssuer is the <did> part of a legacy identifier: an unqualified
// DID or a DID (did:sov:<nym> in older Credo and ACA-Py output).
func legacyIssuer(s string) bool {
	return legacyDID(s) || isDID(s)
}

// legacySchemaID matches <did>:2:<name>:<version>, split as every part
// of proofgate splits it (names.Schema), with a dotted version and an
// issuer that is a DID.
func legacySchemaID(s string) bool {
	issuer, _, version, ok := names.Schema(s)
	return ok && dottedVersion(version) && legacyIssuer(issuer)
}

// legacyCredDefID matches <did>:3:CL:<schema ref>:<tag>: a request names
// a tag, as every ledger has written one since tags were introduced.
func legacyCredDefID(s string) bool {
	issuer, rest, ok := names.CredDef(s)
	i := strings.LastIndexByte(rest, ':')
	return ok && legacyIssuer(issuer) && i > 0 && i < len(rest)-1
}

// legacyRevRegID matches <did>:4:<cred def id>:CL_ACCUM:<tag>.
func legacyRevRegID(s string) bool {
	issuer, credDef, ok := names.RevReg(s)
	return ok && legacyIssuer(issuer) && legacyCredDefID(credDef)
}

func schemaIDProblem(s string) (string, bool) {
	if legacySchemaID(s) || isDIDURL(s) || isURI(s) {
		return "", true
	}
	return "not a schema identifier (<did>:2:<name>:<version>, a DID URL or a URI)", false
}

func credDefIDProblem(s string) (string, bool) {
	if legacyCredDefID(s) || isDIDURL(s) || isURI(s) {
		return "", true
	}
	return "not a credential definition identifier (<did>:3:CL:<schema>:<tag>, a DID URL or a URI)", false
}

func revRegIDProblem(s string) (string, bool) {
	if legacyRevRegID(s) || isDIDURL(s) || isURI(s) {
		return "", true
	}
	return "not a revocation registry identifier (<did>:4:<cred def id>:CL_ACCUM:<tag>, a DID URL or a URI)", false
}

// didProblem checks the *_did keys: an unqualified Indy DID or a DID.
func didProblem(s string) (string, bool) {
	if legacyIssuer(s) {
		return "", true
	}
	return "not a DID (a 21-22 character base58 Indy DID or did:<method>:<id>)", false
}

// issuerIDProblem checks the AnonCreds issuer ids, which may be any URI.
func issuerIDProblem(s string) (string, bool) {
	if legacyIssuer(s) || isURI(s) {
		return "", true
	}
	return "not an issuer identifier (an Indy DID, a DID or a URI)", false
}
