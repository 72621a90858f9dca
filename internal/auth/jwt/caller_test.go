package jwt

import "testing"

// Each token's holder has a Caller of its own (what state kept per caller
// is scoped to): a sub that reads "client:svc" is not the client svc, and
// a token naming no one has none.
func TestCaller(t *testing.T) {
	k := newRSAKey(t, "k1", 0)
	jwk, _ := jsonKey(k.public())
	p := provision(t, &Provider{KeyFiles: []string{writeFile(t, t.TempDir(), "k.jwk", []byte(jwk))}, Issuer: testIssuer, Audience: []string{testAudience}})
	caller := func(mod func(map[string]any)) string {
		pr, err := p.Authenticate(bearer(k.sign(t, claimsFor(mod))))
		if err != nil {
			t.Fatal(err)
		}
		return pr.Caller
	}
	user := caller(func(c map[string]any) { c["sub"] = "client:svc" })
	client := caller(func(c map[string]any) { delete(c, "sub"); c["azp"] = "svc" })
	clientID := caller(func(c map[string]any) { delete(c, "sub"); c["client_id"] = "svc" })
	nobody := caller(func(c map[string]any) { delete(c, "sub") })
	if user == client || user == "" || client == "" || client != clientID {
		t.Errorf("sub client:svc %q, azp svc %q, client_id svc %q", user, client, clientID)
	}
	if nobody != "" {
		t.Errorf("a token naming no one has the caller %q", nobody)
	}
}
