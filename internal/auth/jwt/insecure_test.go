package jwt

import (
	"strings"
	"testing"
)

func TestPlainHTTPJWKSRefused(t *testing.T) {
	for _, tc := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://idp.example.com/certs", false, true},
		{"http://127.0.0.1:8080/certs", false, true},
		{"http://localhost:8080/certs", false, true},
		{"http://idp.example.com/certs", false, false},
		{"http://10.0.0.7/certs", false, false},
		{"http://idp.example.com/certs", true, true},
	} {
		err := checkJWKSURL(tc.url, tc.insecure)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.url, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "insecure_http")) {
			t.Errorf("%s: %v, want a refusal naming insecure_http", tc.url, err)
		}
	}
}

func TestScopeWarning(t *testing.T) {
	if (&Provider{}).scopeWarning() == "" {
		t.Error("no warning without issuer and audience")
	}
	if (&Provider{Issuer: "https://idp"}).scopeWarning() != "" || (&Provider{Audience: []string{"a"}}).scopeWarning() != "" {
		t.Error("warning although the tokens are scoped")
	}
}
