package apikey

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/proofgate/proofgate/internal/auth"
)

const (
	keyA = "key-for-org-a-0123456789"
	keyB = "key-for-org-b-0123456789"
)

func provisioned(t *testing.T, keys ...Key) *Provider {
	t.Helper()
	p := &Provider{Keys: keys}
	if err := p.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, k := range p.Keys {
		if k.Key != "" {
			t.Fatalf("key %d kept after provisioning", i)
		}
	}
	return p
}

func TestAuthenticate(t *testing.T) {
	t.Setenv("PROOFGATE_TEST_KEY", keyB)
	secret := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(secret, []byte("key-from-a-file-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := provisioned(t,
		Key{Key: keyA, Orgs: []string{"org-a"}, Label: "a"},
		Key{Key: "{file." + secret + "}", Orgs: []string{"org-f"}, Label: "f"},
		Key{Key: "{env.PROOFGATE_TEST_KEY}", Orgs: []string{"org-b", "org-c"}},
		Key{Key: Digest("pre-hashed-key-0123456789"), Orgs: []string{"*"}},
	)
	for _, tc := range []struct {
		name    string
		headers map[string]string
		wantErr error // nil: authenticated
		subject string
		orgs    []string
		all     bool
	}{
		{"bearer", map[string]string{"Authorization": "Bearer " + keyA}, nil, "api_key:a", []string{"org-a"}, false},
		{"bearer lower case", map[string]string{"Authorization": "bearer " + keyA}, nil, "api_key:a", []string{"org-a"}, false},
		{"x-api-key", map[string]string{"X-API-Key": keyA}, nil, "api_key:a", []string{"org-a"}, false},
		{"env placeholder", map[string]string{"X-API-Key": keyB}, nil, "", []string{"org-b", "org-c"}, false},
		{"file placeholder", map[string]string{"X-API-Key": "key-from-a-file-0123456789"}, nil, "api_key:f", []string{"org-f"}, false},
		{"pre-hashed", map[string]string{"Authorization": "Bearer pre-hashed-key-0123456789"}, nil, "", nil, true},
		{"no credential", nil, auth.ErrNoCredential, "", nil, false},
		{"basic", map[string]string{"Authorization": "Basic abc"}, auth.ErrNoCredential, "", nil, false},
		{"jwt-shaped bearer is left to jwt", map[string]string{"Authorization": "Bearer a.b.c"}, auth.ErrNoCredential, "", nil, false},
		{"wrong bearer", map[string]string{"Authorization": "Bearer wrong-key-0123456789"}, errInvalidKey, "", nil, false},
		{"wrong x-api-key", map[string]string{"X-API-Key": "a.b.c"}, errInvalidKey, "", nil, false},
		{"the digest itself is not a key", map[string]string{"X-API-Key": Digest(keyA)}, errInvalidKey, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			got, err := p.Authenticate(r)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				return
			}
			if tc.subject != "" && got.Subject != tc.subject {
				t.Errorf("subject %q", got.Subject)
			}
			if strings.Contains(got.Subject, keyA) || strings.Contains(got.Subject, keyB) {
				t.Errorf("subject leaks the key: %q", got.Subject)
			}
			if got.AllOrgs != tc.all || len(got.Orgs) != len(tc.orgs) {
				t.Fatalf("principal %+v", got)
			}
			for _, o := range tc.orgs {
				if !got.Authorize(o, auth.DefaultAllowedRoles) {
					t.Errorf("not authorized for %s", o)
				}
			}
			if !tc.all && got.Authorize("org-z", auth.DefaultAllowedRoles) {
				t.Error("authorized for an org it is not bound to")
			}
		})
	}
}

func TestProvisionAndValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []Key
		want string
	}{
		{"short key", []Key{{Key: "short", Orgs: []string{"a"}}}, "too short"},
		{"bad digest", []Key{{Key: "sha256:zz", Orgs: []string{"a"}}}, "hex digits"},
		{"unset env", []Key{{Key: "{env.PROOFGATE_UNSET_FOR_TEST}", Orgs: []string{"a"}}}, "is empty"},
		{"no orgs", []Key{{Key: keyA}}, "bind the key"},
		{"duplicate", []Key{{Key: keyA, Orgs: []string{"a"}}, {Key: Digest(keyA), Orgs: []string{"b"}}}, "configured twice"},
		{"none", nil, "no keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Provider{Keys: tc.keys}
			err := p.Provision(caddy.Context{})
			if err == nil {
				err = p.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestUnmarshalCaddyfile(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Key
		wantErr string
	}{
		{in: "api_key k1 org a b", want: Key{Key: "k1", Orgs: []string{"a", "b"}}},
		{in: "api_key k1 org * label ops", want: Key{Key: "k1", Orgs: []string{"*"}, Label: "ops"}},
		{in: "api_key k1 label ops org a", want: Key{Key: "k1", Orgs: []string{"a"}, Label: "ops"}},
		{in: "api_key", wantErr: "wrong argument count"},
		{in: "api_key k1 org", wantErr: "org needs at least one"},
		{in: "api_key k1 label", wantErr: "label needs a value"},
		{in: "api_key k1 org a org b", wantErr: "org given twice"},
		{in: "api_key k1 tenant a", wantErr: `unknown option "tenant"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var p Provider
			err := p.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := p.Keys[0]
			if got.Key != tc.want.Key || got.Label != tc.want.Label || strings.Join(got.Orgs, ",") != strings.Join(tc.want.Orgs, ",") {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func BenchmarkAuthenticate(b *testing.B) {
	// Keys given as digests, as the README advises (a literal key would
	// log a warning per key at Provision).
	keys := make([]Key, 20)
	var last string
	for i := range keys {
		last = strings.Repeat(string(rune('a'+i)), 32)
		sum := sha256.Sum256([]byte(last))
		keys[i] = Key{Key: "sha256:" + hex.EncodeToString(sum[:]), Orgs: []string{"org"}}
	}
	p := &Provider{Keys: keys}
	if err := p.Provision(caddy.Context{}); err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/", nil)
	r.Header.Set("Authorization", "Bearer "+last)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Authenticate(r); err != nil {
			b.Fatal(err)
		}
	}
}
