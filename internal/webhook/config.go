// Package webhook tells verifier applications about proof records: each
// state change becomes an event, signed per the Standard Webhooks
// specification and delivered durably, through the shared outbox, to every
// configured endpoint that wants it.
package webhook

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/proofgate/proofgate/internal/redact"
)

// Defaults of a webhook's options.
const (
	DefaultTimeout = 10 * time.Second
	maxTimeout     = 2 * time.Minute
	maxURL         = 2048
)

// Config is one "webhook <url> { … }" block.
type Config struct {
	// URL receives the events (POST, JSON). http or https; it must
	// resolve to a public address unless allow_private is set. A
	// placeholder ({env.*}) that resolves to nothing disables the webhook,
	// so one config can serve with and without it.
	URL string `json:"url,omitempty"`

	// Secret signs the events: a Standard Webhooks secret, whsec_ and the
	// base64 of 24 to 64 random bytes. Use a placeholder ({env.*},
	// {file.*}) so it stays out of the config dump. Required.
	Secret string `json:"secret,omitempty"`

	// Orgs limits the endpoint to the records of these orgs. Default: all.
	Orgs []string `json:"orgs,omitempty"`

	// IncludeRecord adds the record's own JSON under data.record.
	IncludeRecord bool `json:"include_record,omitempty"`

	// Timeout bounds one delivery attempt. Default: 10s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	// AllowPrivate lets the endpoint be on a loopback, private or other
	// non-public address (a receiver on the same host or network). Off by
	// default: the outbound address guard applies.
	AllowPrivate bool `json:"allow_private,omitempty"`
}

// Validate checks the block; errors name the option, and the webhook by
// its URL redacted (it is resolved by then, and may have come from
// {env.*} to keep it out of sight). Secret placeholders are checked once
// resolved (Provision).
func (c *Config) Validate() error {
	var errs []error
	prefix := "webhook: "
	if name := shownURL(c.URL); name != "" {
		prefix = "webhook " + name + ": "
	}
	add := func(format string, args ...any) {
		// The prefix is no format: a URL may hold %.
		errs = append(errs, fmt.Errorf("%s"+format, append([]any{prefix}, args...)...))
	}
	if len(c.URL) > maxURL {
		add("url: longer than %d bytes", maxURL)
	} else if u, err := url.Parse(c.URL); err != nil {
		add("url: not a valid URL")
	} else if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add("url: must be an absolute http(s) URL")
	} else if u.User != nil {
		add("url: must not contain credentials")
	}
	if c.Secret == "" {
		add("secret: required (whsec_<base64>, e.g. {env.WEBHOOK_SECRET})")
	}
	if c.Timeout < 0 || time.Duration(c.Timeout) > maxTimeout {
		add("timeout: must be between 1s and %v", maxTimeout)
	} else if c.Timeout > 0 && time.Duration(c.Timeout) < time.Second {
		add("timeout: must be at least 1s")
	}
	for _, o := range c.Orgs {
		if o == "" {
			add("orgs: empty org id")
		}
	}
	return errors.Join(errs...)
}

// shownURL is how errors and logs name a webhook URL: its userinfo
// masked whole (url.Redacted keeps the user name, which can be a token by
// itself), and so is an opaque part ("user:password@host", the scheme
// forgotten, parses as scheme "user" and opaque "password@host"). "" if
// it does not parse: url.Parse's error would quote it whole.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return redact.URL(u)
}

// UnmarshalCaddyfile reads one webhook block, the dispenser positioned at
// "webhook":
//
//	webhook <url> {
//		secret         <whsec_…|{env.*}|{file.*}>
//		orgs           <org>...
//		include_record [true|false]
//		timeout        <duration>
//		allow_private  [true|false]
//	}
func (c *Config) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // "webhook"
	if !d.NextArg() {
		return d.ArgErr()
	}
	c.URL = d.Val()
	if d.NextArg() {
		return d.Errf("webhook: one URL, then a block; got %q", d.Val())
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if seen[opt] {
			return d.Errf("webhook: %s given twice", opt)
		}
		seen[opt] = true
		switch opt {
		case "secret":
			if !d.AllArgs(&c.Secret) {
				return d.ArgErr()
			}
		case "orgs":
			c.Orgs = d.RemainingArgs()
			if len(c.Orgs) == 0 {
				return d.ArgErr()
			}
		case "timeout":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("webhook timeout: %q is not a positive duration", v)
			}
			c.Timeout = caddy.Duration(dur)
		case "include_record", "allow_private":
			// An optional true/false, so {$ENV:false} can switch it.
			on := true
			if d.NextArg() {
				b, err := strconv.ParseBool(d.Val())
				if err != nil {
					return d.Errf("webhook %s: want true or false, got %q", opt, d.Val())
				}
				on = b
				if d.NextArg() {
					return d.ArgErr()
				}
			}
			if opt == "include_record" {
				c.IncludeRecord = on
			} else {
				c.AllowPrivate = on
			}
		default:
			return d.Errf("webhook: unknown option %q (secret, orgs, include_record, timeout, allow_private)", opt)
		}
	}
	return nil
}
