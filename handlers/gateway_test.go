package handlers

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// The log of a failed authentication names where a credential was, and
// the scheme only when it is one: a client that forgot the scheme, or
// separated it with a tab, sends its secret first.
func TestCredentialKind(t *testing.T) {
	const secret = "sk_live_0123456789abcdefSECRET"
	for _, tt := range []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"nothing", nil, "none"},
		{"api key", map[string]string{"X-API-Key": secret}, "X-API-Key"},
		{"bearer", map[string]string{"Authorization": "Bearer " + secret}, "Authorization Bearer"},
		{"bearer in lower case", map[string]string{"Authorization": "bearer " + secret}, "Authorization Bearer"},
		{"no scheme", map[string]string{"Authorization": secret}, "Authorization (unrecognized scheme)"},
		{"a tab after the scheme", map[string]string{"Authorization": "Bearer\t" + secret}, "Authorization (unrecognized scheme)"},
		{"both", map[string]string{"X-API-Key": secret, "Authorization": "Basic " + secret}, "X-API-Key, Authorization Basic"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/orgs/x/proofs/oob", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			got := credentialKind(r)
			if got != tt.want || strings.Contains(got, secret[:8]) {
				t.Fatalf("credentialKind = %q, want %q", got, tt.want)
			}
		})
	}
}
