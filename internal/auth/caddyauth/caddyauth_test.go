package caddyauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	caddyauthn "github.com/caddyserver/caddy/v2/modules/caddyhttp/caddyauth"
	caddymap "github.com/caddyserver/caddy/v2/modules/caddyhttp/map"
	"golang.org/x/crypto/bcrypt"

	"github.com/proofgate/proofgate/internal/auth"
)

const (
	orgA = "0f8fad5b-d9cb-469f-a165-70867728950e"
	orgB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
)

func provisioned(t *testing.T, p *Provider) *Provider {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := p.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseOrgs(t *testing.T) {
	tests := []struct {
		orgs, roles string
		want        map[string][]string
	}{
		{"", "", map[string][]string{}},
		{orgA + ":verifier", "", map[string][]string{orgA: {"verifier"}}},
		{orgA + ":verifier, " + orgA + ":admin " + orgB + ":holder", "",
			map[string][]string{orgA: {"verifier", "admin"}, orgB: {"holder"}}},
		{orgA + "," + orgB, "owner verifier", map[string][]string{orgA: {"owner", "verifier"}, orgB: {"owner", "verifier"}}},
		{orgA, "", map[string][]string{orgA: {}}},
		{orgA + ":", "owner", map[string][]string{orgA: {}}},
		{":admin,,", "", map[string][]string{}},
	}
	for _, tc := range tests {
		if got := ParseOrgs(tc.orgs, tc.roles); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseOrgs(%q, %q) = %v, want %v", tc.orgs, tc.roles, got, tc.want)
		}
	}
}

func TestAuthenticateFromPlaceholders(t *testing.T) {
	p := provisioned(t, &Provider{OrgsKey: "groups"})
	tests := []struct {
		name     string
		set      map[string]string
		wantNone bool
		want     bool // Authorize(orgA, default roles)
	}{
		{name: "no user", set: nil, wantNone: true},
		{name: "empty user", set: map[string]string{"http.auth.user.id": ""}, wantNone: true},
		{name: "verifier", set: map[string]string{"http.auth.user.id": "alice", "http.auth.user.groups": orgA + ":verifier"}, want: true},
		{name: "shared roles", set: map[string]string{"http.auth.user.id": "alice", "http.auth.user.groups": orgA, "http.auth.user.roles": "admin"}, want: true},
		{name: "holder", set: map[string]string{"http.auth.user.id": "bob", "http.auth.user.groups": orgA + ":holder"}, want: false},
		{name: "member without role", set: map[string]string{"http.auth.user.id": "bob", "http.auth.user.groups": orgA}, want: false},
		{name: "other org", set: map[string]string{"http.auth.user.id": "bob", "http.auth.user.groups": orgB + ":owner"}, want: false},
		{name: "default key ignored", set: map[string]string{"http.auth.user.id": "bob", "http.auth.user.orgs": orgA + ":owner"}, want: false},
		{name: "no metadata", set: map[string]string{"http.auth.user.id": "carol"}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			repl := caddyhttp.NewTestReplacer(r)
			for k, v := range tc.set {
				repl.Set(k, v)
			}
			pr, err := p.Authenticate(r)
			if tc.wantNone {
				if !errors.Is(err, auth.ErrNoCredential) {
					t.Fatalf("err %v, want ErrNoCredential", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pr.Subject != "caddy:"+tc.set["http.auth.user.id"] || pr.AllOrgs {
				t.Fatalf("principal %+v", pr)
			}
			if got := pr.Authorize(orgA, auth.DefaultAllowedRoles); got != tc.want {
				t.Fatalf("Authorize = %v, want %v (orgs %v)", got, tc.want, pr.Orgs)
			}
		})
	}
	// Outside Caddy (no replacer) there is no identity to trust.
	if _, err := p.Authenticate(httptest.NewRequest(http.MethodGet, "/", nil)); !errors.Is(err, auth.ErrNoCredential) {
		t.Fatalf("without a replacer: %v", err)
	}
}

// TestBehindBasicAuth runs Caddy's real map and basic_auth handlers in
// front of the provider, as the Caddyfile example composes them.
func TestBehindBasicAuth(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	hash, err := bcrypt.GenerateFromPassword([]byte("alice-password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	basic, _ := json.Marshal(map[string]any{
		"accounts": []map[string]string{
			{"username": "alice", "password": string(hash)},
			{"username": "harry", "password": string(hash)},
		},
	})
	authn := &caddyauthn.Authentication{ProvidersRaw: caddy.ModuleMap{"http_basic": basic}}
	if err := authn.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	mapper := &caddymap.Handler{
		Source:       "{http.auth.user.id}",
		Destinations: []string{"{http.auth.user.orgs}"},
		Mappings: []caddymap.Mapping{
			{Input: "alice", Outputs: []any{orgA + ":verifier"}},
			{Input: "harry", Outputs: []any{orgA + ":holder"}},
		},
	}
	if err := mapper.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	p := provisioned(t, &Provider{})

	// The last handler stands in for proofgate: 200 if authorized for
	// orgA, 403 if not, 401 if no identity reached it.
	final := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		pr, err := p.Authenticate(r)
		switch {
		case err != nil:
			w.WriteHeader(http.StatusUnauthorized)
		case pr.Authorize(orgA, auth.DefaultAllowedRoles):
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusForbidden)
		}
		return nil
	})
	chain := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return mapper.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return authn.ServeHTTP(w, r, final)
		}))
	})

	tests := []struct {
		name, user, pass string
		want             int
	}{
		{"verifier", "alice", "alice-password", http.StatusOK},
		{"holder", "harry", "alice-password", http.StatusForbidden},
		{"wrong password", "alice", "nope", http.StatusUnauthorized},
		{"no credentials", "", "", http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/orgs/"+orgA+"/proofs/oob", nil)
			if tc.user != "" {
				r.SetBasicAuth(tc.user, tc.pass)
			}
			caddyhttp.NewTestReplacer(r)
			w := httptest.NewRecorder()
			err := chain.ServeHTTP(w, r)
			status := w.Code
			var he caddyhttp.HandlerError
			if errors.As(err, &he) {
				status = he.StatusCode // basic_auth refuses by returning an error
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tc.want {
				t.Fatalf("status %d, want %d", status, tc.want)
			}
		})
	}
}

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		input string
		want  Provider
		err   string
	}{
		{input: "caddy", want: Provider{}},
		{input: "caddy {\n orgs_key groups\n roles_key org_roles\n}", want: Provider{OrgsKey: "groups", RolesKey: "org_roles"}},
		{input: "caddy extra", err: "wrong argument count"},
		{input: "caddy {\n orgs_key a\n orgs_key b\n}", err: "orgs_key given twice"},
		{input: "caddy {\n user_key x\n}", err: `unknown option "user_key"`},
		{input: "caddy {\n orgs_key\n}", err: "wrong argument count"},
		{input: "caddy {\n roles_key a b\n}", err: "wrong argument count"},
	}
	for _, tc := range tests {
		var p Provider
		err := p.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.input))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.input, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(p, tc.want) {
			t.Errorf("%q: got %+v, %v", tc.input, p, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []Provider{
		{OrgsKey: "{http.auth.user.orgs}"},
		{RolesKey: "has space"},
		{OrgsKey: "id"},
	} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		if err := p.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: accepted", p)
		}
		cancel()
	}
}
