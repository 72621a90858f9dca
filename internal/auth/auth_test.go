package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAuthorize(t *testing.T) {
	allowed := DefaultAllowedRoles
	for _, tc := range []struct {
		name string
		p    *Principal
		org  string
		want bool
	}{
		{"nil principal", nil, "o", false},
		{"all orgs", &Principal{AllOrgs: true}, "o", true},
		{"bound to the org as a whole", &Principal{Orgs: map[string][]string{"o": nil}}, "o", true},
		{"verifier", &Principal{Orgs: map[string][]string{"o": {"verifier"}}}, "o", true},
		{"owner among others", &Principal{Orgs: map[string][]string{"o": {"holder", "owner"}}}, "o", true},
		{"holder only", &Principal{Orgs: map[string][]string{"o": {"holder"}}}, "o", false},
		{"member without roles", &Principal{Orgs: map[string][]string{"o": {}}}, "o", false},
		{"other org", &Principal{Orgs: map[string][]string{"p": nil}}, "o", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Authorize(tc.org, allowed); got != tc.want {
				t.Fatalf("Authorize = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc ", "abc", true},
		{"BEARER abc", "abc", true},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"Bearerabc", "", false},
		{"", "", false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", tc.header)
		token, ok := BearerToken(r)
		if token != tc.token || ok != tc.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tc.header, token, ok, tc.token, tc.ok)
		}
	}
}

// provider answers from a fixed table, to test the chain's order rules.
type provider struct {
	p         *Principal
	err       error
	challenge string
	calls     int
}

func (f *provider) Authenticate(*http.Request) (*Principal, error) { f.calls++; return f.p, f.err }
func (f *provider) Challenge(error) string                         { return f.challenge }

func TestChain(t *testing.T) {
	alice := &Principal{Subject: "alice"}
	invalid := errors.New("bad signature")
	for _, tc := range []struct {
		name          string
		providers     []*provider
		wantSubject   string
		wantChallenge string
		wantCalls     []int
	}{
		{"first recognizes", []*provider{{p: alice}, {p: &Principal{Subject: "bob"}}}, "alice", "", []int{1, 0}},
		{"falls through on no credential", []*provider{{err: ErrNoCredential}, {p: alice}}, "alice", "", []int{1, 1}},
		{"invalid credential is final", []*provider{{err: invalid, challenge: `Bearer error="invalid_token"`}, {p: alice}}, "", `Bearer error="invalid_token"`, []int{1, 0}},
		{"invalid without a challenge of its own", []*provider{{err: invalid}}, "", DefaultChallenge, []int{1}},
		{"nobody recognizes", []*provider{{err: ErrNoCredential}, {err: ErrNoCredential}}, "", DefaultChallenge, []int{1, 1}},
		{"nobody recognizes, a provider names the challenge", []*provider{{err: ErrNoCredential, challenge: `Bearer realm="idp"`}}, "", `Bearer realm="idp"`, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Chain
			for _, p := range tc.providers {
				c = append(c, p)
			}
			p, challenge, err := c.Authenticate(httptest.NewRequest("GET", "/", nil))
			if tc.wantSubject != "" {
				if err != nil || p.Subject != tc.wantSubject {
					t.Fatalf("got %v, %v", p, err)
				}
			} else if err == nil || challenge != tc.wantChallenge {
				t.Fatalf("err %v challenge %q, want challenge %q", err, challenge, tc.wantChallenge)
			}
			for i, want := range tc.wantCalls {
				if tc.providers[i].calls != want {
					t.Errorf("provider %d called %d times, want %d", i, tc.providers[i].calls, want)
				}
			}
		})
	}
}

// TestChainRefusesAmbiguousCredentials: two credentials in one request are
// refused before any provider looks, whichever would have won.
func TestChainRefusesAmbiguousCredentials(t *testing.T) {
	alice := &provider{p: &Principal{Subject: "alice"}}
	c := Chain{alice}
	for _, tc := range []struct {
		name    string
		headers [][2]string
		ok      bool
	}{
		{"one bearer", [][2]string{{"Authorization", "Bearer k1"}}, true},
		{"one X-API-Key", [][2]string{{"X-API-Key", "k1"}}, true},
		{"the same key both ways", [][2]string{{"Authorization", "Bearer k1"}, {"X-API-Key", "k1"}}, true},
		{"different keys both ways", [][2]string{{"Authorization", "Bearer k2"}, {"X-API-Key", "k1"}}, false},
		{"basic beside X-API-Key", [][2]string{{"Authorization", "Basic dTpw"}, {"X-API-Key", "k1"}}, false},
		{"Authorization twice", [][2]string{{"Authorization", "Bearer k1"}, {"Authorization", "Bearer k1"}}, false},
		{"X-API-Key twice", [][2]string{{"X-API-Key", "k1"}, {"X-API-Key", "k2"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			for _, h := range tc.headers {
				r.Header.Add(h[0], h[1])
			}
			_, _, err := c.Authenticate(r)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrAmbiguousCredentials) {
				t.Fatalf("err %v, want ErrAmbiguousCredentials", err)
			}
		})
	}
}

// TestHeaderKeysCanonical: the header keys looked up directly in a
// request's header map are the form net/http stores them in.
func TestHeaderKeysCanonical(t *testing.T) {
	for _, k := range []string{APIKeyHeader, "Authorization"} {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("%q is not canonical (%q)", k, c)
		}
	}
	h := http.Header{}
	h.Set("x-api-key", "k1")
	h.Add("X-API-Key", "k2")
	if got := Header(h, APIKeyHeader); got != h.Get("X-API-Key") || got != "k1" {
		t.Errorf("Header = %q, Get = %q", got, h.Get("X-API-Key"))
	}
	if got := Header(h, "Authorization"); got != "" {
		t.Errorf("missing header: %q", got)
	}
}
