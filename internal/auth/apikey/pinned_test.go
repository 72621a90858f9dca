package apikey

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/auth"
)

// A key whose digest differs from the configured one only in its last
// byte is refused: the whole digest is compared.
func TestWholeDigestCompared(t *testing.T) {
	const presented = "near-miss-key-0123456789"
	d := sha256.Sum256([]byte(presented))
	for _, i := range []int{0, 15, 16, 31} {
		near := d
		near[i] ^= 1
		p := provisioned(t, Key{Key: DigestPrefix + hex.EncodeToString(near[:]), Orgs: []string{"org-a"}})
		r := httptest.NewRequest("POST", "/", nil)
		r.Header.Set("X-API-Key", presented)
		if pr, err := p.Authenticate(r); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("byte %d differing: principal %v, err %v; want ErrInvalidKey", i, pr, err)
		}
	}
}

// A bearer API key with a dot (not JWT-shaped: not three parts) is ours.
func TestDottedBearerKey(t *testing.T) {
	const key = "dotted.key-0123456789"
	p := provisioned(t, Key{Key: key, Orgs: []string{"org-a"}})
	r := httptest.NewRequest("POST", "/", nil)
	r.Header.Set("Authorization", "Bearer "+key)
	pr, err := p.Authenticate(r)
	if err != nil || !pr.Authorize("org-a", auth.DefaultAllowedRoles) {
		t.Fatalf("dotted key: %v %v", pr, err)
	}
}

// Only "*" itself means every org: an org id starting with "*" is an org.
func TestStarPrefixIsNotAllOrgs(t *testing.T) {
	p := provisioned(t, Key{Key: keyA, Orgs: []string{"*org-a"}})
	r := httptest.NewRequest("POST", "/", nil)
	r.Header.Set("X-API-Key", keyA)
	pr, err := p.Authenticate(r)
	if err != nil {
		t.Fatal(err)
	}
	if pr.AllOrgs || pr.Authorize("org-b", auth.DefaultAllowedRoles) {
		t.Fatalf("a key bound to %q acts for org-b", "*org-a")
	}
}

// Keys shorter than MinKeyLength are refused; MinKeyLength is accepted.
// An empty org list (JSON "orgs": []) is refused like a missing one.
func TestKeyLengthAndEmptyOrgs(t *testing.T) {
	short := &Provider{Keys: []Key{{Key: strings.Repeat("k", MinKeyLength-1), Orgs: []string{"a"}}}}
	if err := short.Provision(caddy.Context{}); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Errorf("%d-character key: %v", MinKeyLength-1, err)
	}
	provisioned(t, Key{Key: strings.Repeat("k", MinKeyLength), Orgs: []string{"a"}})
	empty := &Provider{Keys: []Key{{Key: keyA, Orgs: []string{}}}}
	err := empty.Provision(caddy.Context{})
	if err == nil {
		err = empty.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "bind the key") {
		t.Errorf("empty org list: %v", err)
	}
}
