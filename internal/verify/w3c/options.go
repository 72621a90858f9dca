package w3c

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Defaults.
const (
	DefaultClockSkew      = 5 * time.Minute
	DefaultMaxCredentials = 10
	// MaxCredentialsLimit is the highest max_credentials accepted.
	MaxCredentialsLimit = 100
	// MaxPresentationSize caps the presentation attachment.
	MaxPresentationSize = 1 << 20
	// maxTrustedIssuers caps the trust list.
	maxTrustedIssuers = 1000
)

// Options configure the verification of W3C presentations (presentation
// exchange, dif/presentation-exchange/submission@v1.0) by the local
// backend. The local backend embeds them, so in JSON they sit beside its
// other fields and in the Caddyfile they are subdirectives of
// `backend local { … }`.
type Options struct {
	// TrustedIssuers, when set, is the only issuers whose credentials
	// are accepted: DIDs ("did:key:z6Mk…"), or did:web patterns
	// ("did:web:example.com" also matches did:web:example.com:<path…>;
	// "did:web:*.example.com" matches every subdomain). A credential
	// from any other issuer fails with "untrusted-issuer". Unset: any
	// issuer whose signature verifies is accepted.
	TrustedIssuers []string `json:"trusted_issuers,omitempty"`

	// JSONLDContexts is a directory of extra JSON-LD contexts: its
	// index.json maps each context URL to a file of the directory.
	// Contexts outside the pinned set and this directory are never
	// fetched: a credential using one fails with "unsupported context
	// <url>".
	JSONLDContexts string `json:"jsonld_contexts,omitempty"`

	// DIDResolver is the base URL of a DIF Universal Resolver
	// (GET <url>/1.0/identifiers/<did>) for DID methods other than
	// did:key, did:jwk and did:web. Unset: such issuers are unsupported.
	DIDResolver string `json:"did_resolver,omitempty"`

	// DIDResolverMethods, if set, are the only DID methods DIDResolver is
	// asked about (Caddyfile: after its URL, `did_resolver <url> ion
	// ebsi`); any other is unsupported. The prover chooses the DID, and a
	// resolver's drivers may fetch the hosts it names (did:webvh, did:webs)
	// from the resolver's network. Unset: every method.
	DIDResolverMethods []string `json:"did_resolver_methods,omitempty"`

	// RequireDomain makes the presentation's proof carry our domain. Off
	// by default because ACA-Py (0.12 to current) never signs one; a
	// proof whose domain differs from ours fails either way.
	RequireDomain bool `json:"require_domain,omitempty"`

	// HolderBinding is "on" (default) or "off". On, a credential whose
	// credentialSubject.id is a DID must be presented (the presentation
	// proof signed) by that DID.
	HolderBinding string `json:"holder_binding,omitempty"`

	// StatusUnknown is "fail" (default) or "accept": what to do with a
	// credential whose status list cannot be fetched or verified.
	StatusUnknown string `json:"status_unknown,omitempty"`

	// ClockSkew is the tolerance when comparing validity dates with our
	// clock. Default 5m.
	ClockSkew caddy.Duration `json:"clock_skew,omitempty"`

	// MaxCredentials caps the credentials in one presentation. Default
	// 10, at most 100.
	MaxCredentials int `json:"max_credentials,omitempty"`
}

// IsDirective reports whether name is one of these options' subdirectives.
func IsDirective(name string) bool {
	switch name {
	case "trusted_issuers", "jsonld_contexts", "did_resolver", "require_domain",
		"holder_binding", "status_unknown", "clock_skew", "max_credentials":
		return true
	}
	return false
}

// UnmarshalDirective reads the subdirective d is on (IsDirective(d.Val())).
func (o *Options) UnmarshalDirective(d *caddyfile.Dispenser) error {
	name := d.Val()
	args := d.RemainingArgs()
	one := func() (string, error) {
		if len(args) != 1 {
			return "", d.Errf("%s takes exactly one argument", name)
		}
		return args[0], nil
	}
	var err error
	switch name {
	case "trusted_issuers":
		if len(args) == 0 {
			return d.Errf("trusted_issuers needs at least one DID or did:web pattern")
		}
		o.TrustedIssuers = append(o.TrustedIssuers, args...)
	case "jsonld_contexts":
		o.JSONLDContexts, err = one()
	case "did_resolver":
		if len(args) == 0 {
			return d.Errf("did_resolver takes a URL, then optionally the DID methods to ask it about")
		}
		o.DIDResolver, o.DIDResolverMethods = args[0], append(o.DIDResolverMethods, args[1:]...)
	case "require_domain":
		if len(args) > 1 {
			return d.Errf("require_domain takes at most one argument (on or off)")
		}
		o.RequireDomain = true
		if len(args) == 1 {
			b, perr := parseOnOff(args[0])
			if perr != nil {
				return d.Errf("require_domain: %v", perr)
			}
			o.RequireDomain = b
		}
	case "holder_binding":
		o.HolderBinding, err = one()
	case "status_unknown":
		o.StatusUnknown, err = one()
	case "clock_skew":
		var s string
		if s, err = one(); err == nil {
			dur, perr := caddy.ParseDuration(s)
			if perr != nil {
				return d.Errf("clock_skew: %v", perr)
			}
			if dur == 0 {
				// 0 is the option left out (JSON omits it): the default.
				return d.Errf("clock_skew: 0 would mean the default (%s); give 1s for the strictest check", DefaultClockSkew)
			}
			o.ClockSkew = caddy.Duration(dur)
		}
	case "max_credentials":
		var s string
		if s, err = one(); err == nil {
			n, perr := strconv.Atoi(s)
			if perr != nil {
				return d.Errf("max_credentials: %q is not a number", s)
			}
			if n < 1 {
				// 0 is the option left out (JSON omits it): the default.
				return d.Errf("max_credentials: must be between 1 and %d", MaxCredentialsLimit)
			}
			o.MaxCredentials = n
		}
	default:
		return d.Errf("unknown subdirective %q", name)
	}
	if err != nil {
		return err
	}
	// Check what can be checked without the machine (jsonld_contexts is
	// looked at in Validate), so adapting reports bad values.
	check := *o
	check.JSONLDContexts = ""
	if verr := check.Validate(); verr != nil {
		return d.Err(verr.Error())
	}
	return nil
}

func parseOnOff(s string) (bool, error) {
	switch s {
	case "on", "true":
		return true, nil
	case "off", "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", s)
}

// Validate checks the options; every problem names its field.
func (o *Options) Validate() error {
	if len(o.TrustedIssuers) > maxTrustedIssuers {
		return fmt.Errorf("trusted_issuers: at most %d entries", maxTrustedIssuers)
	}
	for _, ti := range o.TrustedIssuers {
		if err := checkTrustPattern(ti); err != nil {
			return fmt.Errorf("trusted_issuers: %q: %v", ti, err)
		}
	}
	if o.JSONLDContexts != "" {
		if st, err := os.Stat(o.JSONLDContexts); err != nil || !st.IsDir() {
			return fmt.Errorf("jsonld_contexts: %q is not a readable directory", o.JSONLDContexts)
		}
	}
	if o.DIDResolver != "" {
		u, err := url.Parse(o.DIDResolver)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("did_resolver: %q must be an http(s) base URL without query or fragment", o.DIDResolver)
		}
	}
	if len(o.DIDResolverMethods) > 0 && o.DIDResolver == "" {
		return fmt.Errorf("did_resolver_methods: given without did_resolver")
	}
	for _, m := range o.DIDResolverMethods {
		switch {
		case !didMethodName(m):
			return fmt.Errorf("did_resolver: %q is not a DID method name (lower-case letters and digits, as in did:<method>:…)", m)
		case m == "key" || m == "jwk" || m == "web":
			return fmt.Errorf("did_resolver: did:%s is resolved here, never by the resolver", m)
		}
	}
	switch o.HolderBinding {
	case "", "on", "off":
	default:
		return fmt.Errorf("holder_binding: %q must be on or off", o.HolderBinding)
	}
	switch o.StatusUnknown {
	case "", "fail", "accept":
	default:
		return fmt.Errorf("status_unknown: %q must be fail or accept", o.StatusUnknown)
	}
	if o.ClockSkew < 0 || time.Duration(o.ClockSkew) > 24*time.Hour {
		return fmt.Errorf("clock_skew: must be between 0 and 24h")
	}
	if o.MaxCredentials < 0 || o.MaxCredentials > MaxCredentialsLimit {
		return fmt.Errorf("max_credentials: must be between 1 and %d", MaxCredentialsLimit)
	}
	return nil
}

func (o *Options) clockSkew() time.Duration {
	if o.ClockSkew == 0 {
		return DefaultClockSkew
	}
	return time.Duration(o.ClockSkew)
}

func (o *Options) maxCredentials() int {
	if o.MaxCredentials == 0 {
		return DefaultMaxCredentials
	}
	return o.MaxCredentials
}

func (o *Options) holderBinding() bool { return o.HolderBinding != "off" }
func (o *Options) acceptUnknown() bool { return o.StatusUnknown == "accept" }

// didMethodName reports whether m is a DID method name (DID Core's
// method-name: one or more lower-case letters and digits).
func didMethodName(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		if c := m[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
