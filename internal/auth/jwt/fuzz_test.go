package jwt

import (
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// FuzzAuthenticate feeds arbitrary bearer tokens to a provider with one
// static EC key. It must never panic, and a token it accepts must carry a
// valid signature by that key (checked again here, independently).
func FuzzAuthenticate(f *testing.F) {
	key := newECKey(f, "ec-1")
	jwk, _ := jsonKey(key.public())
	file := writeFile(f, f.TempDir(), "ec.jwk", []byte(jwk))
	p := provision(f, &Provider{KeyFiles: []string{file}, Issuer: testIssuer, Algorithms: []string{"ES256"}})

	valid := key.sign(f, claimsFor(nil))
	f.Add(valid)
	f.Add(tamper(valid))
	f.Add(noneToken(claimsFor(nil)))
	f.Add(hmacToken(f, []byte("a-secret-of-thirty-two-bytes-abc"), "ec-1", claimsFor(nil)))
	f.Add(strings.Replace(valid, ".", "..", 1))
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJFUzI1NiJ9.e30.")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		if strings.ContainsAny(token, "\r\n\x00") {
			return // not a header value
		}
		principal, err := p.Authenticate(bearer(token))
		if err != nil {
			if principal != nil {
				t.Fatal("a principal with an error")
			}
			return
		}
		if principal == nil {
			t.Fatal("no principal and no error")
		}
		jws, perr := jose.ParseSignedCompact(strings.TrimSpace(token), []jose.SignatureAlgorithm{jose.ES256})
		if perr != nil {
			t.Fatalf("accepted a token that does not parse as ES256 JWS: %v", perr)
		}
		if _, verr := jws.Verify(key.priv.Public()); verr != nil {
			t.Fatalf("accepted a token not signed by the key: %v", verr)
		}
	})
}
