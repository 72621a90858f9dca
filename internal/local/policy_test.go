package local

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/anoncreds/registry"
)

// TestPolicyID proves that the policy a record is judged by identifies
// the backends that may take it: configurations that differ only in what
// does not judge presentations (URLs, label, cluster, retention, a
// registry source's credentials) share it, so cluster instances that each
// advertise their own endpoint take each other's records; any option that
// judges changes it, so another site on the storage does not.
func TestPolicyID(t *testing.T) {
	base := func() *Local {
		l := &Local{PublicURL: "https://a.example", AnonCredsRegistry: &registry.Config{
			Sources: []registry.SourceConfig{{Type: "http", URL: "https://resolver.example", Token: "t1"}}}}
		l.TrustedIssuers = []string{"did:web:issuer.example"}
		return l
	}
	want := base().policyID()
	same := map[string]func(*Local){
		"public_url":       func(l *Local) { l.PublicURL = "https://b.example" },
		"didcomm_endpoint": func(l *Local) { l.DIDCommEndpoint = "https://b.example/didcomm" },
		"label":            func(l *Local) { l.Label = "B" },
		"cluster":          func(l *Local) { l.Cluster = true },
		"record_retention": func(l *Local) { l.RecordRetention = caddy.Duration(time.Hour) },
		"source token":     func(l *Local) { l.AnonCredsRegistry.Sources[0].Token = "t2" },
		"cache_ttl":        func(l *Local) { l.AnonCredsRegistry.CacheTTL = caddy.Duration(time.Minute) },
	}
	for name, change := range same {
		l := base()
		change(l)
		if got := l.policyID(); got != want {
			t.Errorf("%s changed the policy id", name)
		}
	}
	differs := map[string]func(*Local){
		"trusted_issuers":         func(l *Local) { l.TrustedIssuers = []string{"did:web:other.example"} },
		"require_domain":          func(l *Local) { l.RequireDomain = true },
		"holder_binding":          func(l *Local) { l.HolderBinding = "off" },
		"invitation_ttl":          func(l *Local) { l.InvitationTTL = caddy.Duration(time.Hour) },
		"allow_private_endpoints": func(l *Local) { l.AllowPrivateEndpoints = true },
		"no anoncreds_registry":   func(l *Local) { l.AnonCredsRegistry = nil },
		"source url":              func(l *Local) { l.AnonCredsRegistry.Sources[0].URL = "https://other.example" },
		"revocation_unchecked":    func(l *Local) { l.AnonCredsRegistry.RevocationUnchecked = "accept" },
	}
	for name, change := range differs {
		l := base()
		change(l)
		if got := l.policyID(); got == want {
			t.Errorf("%s left the policy id as it was", name)
		}
	}
}
