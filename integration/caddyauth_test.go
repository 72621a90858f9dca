package integration

import (
	"encoding/base64"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"golang.org/x/crypto/bcrypt"
)

// TestCaddyProviderBehindBasicAuth composes Caddy's basic_auth, map and
// proofgate's caddy provider as examples/basicauth.Caddyfile does.
func TestCaddyProviderBehindBasicAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("alice-password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	@api path /orgs/* /proofs/*
	basic_auth @api {
		alice `+string(hash)+`
		harry `+string(hash)+`
		nora `+string(hash)+`
	}
	map {http.auth.user.id} {http.auth.user.orgs} {http.auth.user.roles} {
		alice "`+orgA+`:verifier `+orgB+`:holder" ""
		harry "`+orgA+`:holder" ""
		nora  "`+orgA+`" "admin"
	}
	proofgate {
		backend local local {
			public_url `+base+`
		}
		auth {
			caddy
		}
	}
	respond "passed through" 200
}
`, "caddyfile")
	settle(t)

	basic := func(user, pass string) string {
		return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	for _, tc := range []struct {
		name   string
		org    string
		auth   string
		status int
		body   string
	}{
		{"verifier", orgA, basic("alice", "alice-password"), 201, ""},
		{"holder in the other org", orgB, basic("alice", "alice-password"), 403, forbidden},
		{"holder", orgA, basic("harry", "alice-password"), 403, forbidden},
		{"bare org with roles metadata", orgA, basic("nora", "alice-password"), 201, ""},
		{"non-member", orgB, basic("nora", "alice-password"), 403, forbidden},
		// basic_auth itself refuses these, before proofgate runs.
		{"wrong password", orgA, basic("alice", "wrong"), 401, ""},
		{"no credential", orgA, "", 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := []string{"Content-Type: application/json"}
			if tc.auth != "" {
				headers = append(headers, tc.auth)
			}
			r := do(t, http.MethodPost, oobPath(tc.org, "indy"), indyBody, headers...)
			wantBody(t, r, tc.status, tc.body)
			if tc.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic") {
				t.Fatalf("WWW-Authenticate %q, want basic_auth's challenge", r.header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestCaddyProviderWithoutAuthHandler: with no authentication handler in
// the route there is no identity to trust, so the caller is refused.
func TestCaddyProviderWithoutAuthHandler(t *testing.T) {
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
		auth {
			caddy
		}
	}
}
`, "caddyfile")
	settle(t)
	r := do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: application/json",
		"Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte("alice:alice-password")))
	wantBody(t, r, 401, unauthorized)
}

// TestBasicAuthExample adapts examples/basicauth.Caddyfile.
func TestBasicAuthExample(t *testing.T) {
	data, err := os.ReadFile("../examples/basicauth.Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`"handler":"authentication"`,
		`"handler":"map"`,
		`"destinations":["{http.auth.user.orgs}"]`,
		`"provider":"caddy"`,
		`"orgs_key":"orgs"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("adapted example lacks %s:\n%s", want, s)
		}
	}
	// Its demo users work only from loopback: the refusal of other
	// callers comes before proofgate.
	if e, p := strings.Index(s, `"handler":"error"`), strings.Index(s, `"handler":"proofgate"`); e < 0 || p < 0 || e > p || !strings.Contains(s, `"remote_ip"`) {
		t.Errorf("the demo users are not limited to loopback callers:\n%s", s)
	}
}
