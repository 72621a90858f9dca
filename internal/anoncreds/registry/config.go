package registry

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Config is the anoncreds_registry block of the local backend: where the
// AnonCreds verifier finds schemas and credential definitions, and what it
// does with revocation it cannot check.
type Config struct {
	// Sources are asked in order for an id; the first that knows it
	// answers. An id no source knows fails the credential with "unknown
	// credential definition <id>".
	Sources []SourceConfig `json:"sources,omitempty"`

	// CacheTTL is how long a resolved document is kept (default 10m).
	// Failed lookups (unknown ids, sources down) are remembered for at
	// most 30s.
	CacheTTL caddy.Duration `json:"cache_ttl,omitempty"`

	// RevocationUnchecked is "refuse" (default) or "accept". Non-revocation
	// proofs cannot be checked by this build (they need BN254 pairings);
	// with "accept", a presentation whose credential should prove
	// non-revocation but brings no such proof is judged on its CL proof
	// alone and may verify, with revocation "unchecked" in the verdict.
	RevocationUnchecked string `json:"revocation_unchecked,omitempty"`
}

// SourceConfig is one source.
type SourceConfig struct {
	// Type is files, agent or http.
	Type string `json:"type"`
	// Dir is the directory of a files source.
	Dir string `json:"dir,omitempty"`
	// Agent is the agent type of an agent source: credo or acapy.
	Agent string `json:"agent,omitempty"`
	// URL is an agent's base URL, or an http source's URL template with
	// {id} (and optionally {kind}).
	URL string `json:"url,omitempty"`
	// Token is sent as Authorization to a credo-controller agent; use a
	// placeholder ({env.*}, {file.*}) to keep it out of the config dump.
	Token string `json:"token,omitempty"`
	// APIKey is sent as X-API-Key to an ACA-Py agent; use a placeholder.
	APIKey string `json:"api_key,omitempty"`
	// Header holds extra request headers of an http source (values may be
	// placeholders).
	Header map[string]string `json:"header,omitempty"`
}

// Validate checks the block without touching disk or network.
func (c *Config) Validate() error {
	if c.RevocationUnchecked != "" && c.RevocationUnchecked != "accept" && c.RevocationUnchecked != "refuse" {
		return fmt.Errorf("anoncreds_registry: revocation_unchecked must be accept or refuse, not %q", c.RevocationUnchecked)
	}
	if c.CacheTTL < 0 {
		return fmt.Errorf("anoncreds_registry: cache_ttl must not be negative")
	}
	for i, s := range c.Sources {
		var err error
		switch s.Type {
		case "files":
			if s.Dir == "" {
				err = fmt.Errorf("files needs a directory")
			}
		case "agent":
			if holdsPlaceholder(s.URL) {
				// The URL is checked once resolved (Build); the agent
				// type now.
				_, err = NewAgent(s.Agent, "http://127.0.0.1", nil, nil)
			} else if _, err = NewAgent(s.Agent, s.URL, nil, nil); err == nil {
				err = checkNoCredentials(s.URL)
			}
		case "http":
			if !holdsPlaceholder(s.URL) {
				if _, err = NewHTTP(s.URL, nil, nil); err == nil {
					err = checkNoCredentials(s.URL)
				}
			}
		default:
			err = fmt.Errorf("type %q: files, agent or http expected", s.Type)
		}
		if err != nil {
			return fmt.Errorf("anoncreds_registry: source %d: %v", i+1, err)
		}
	}
	return nil
}

// AcceptUncheckedRevocation tells whether revocation_unchecked is accept.
func (c *Config) AcceptUncheckedRevocation() bool {
	return c != nil && c.RevocationUnchecked == "accept"
}

// Build makes the registry: placeholders resolved, files read.
func (c *Config) Build(repl *caddy.Replacer) (*Registry, error) {
	if c == nil {
		return New(DefaultTTL), nil
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var sources []Source
	for i, s := range c.Sources {
		var (
			src Source
			err error
		)
		// Every placeholder must resolve, as for every other secret: an
		// unset {env.TOKEN} would otherwise send no credential, and every
		// lookup would fail only at the first presentation.
		resolve := func(what, v string) string {
			if err != nil || v == "" {
				return ""
			}
			var out string
			out, err = repl.ReplaceOrErr(v, true, true)
			if err != nil {
				err = fmt.Errorf("%s: %v", what, err)
			}
			return out
		}
		switch s.Type {
		case "files":
			if dir := resolve("dir", s.Dir); err == nil {
				src, err = LoadFiles(dir)
			}
		case "agent":
			h := http.Header{}
			if t := resolve("token", s.Token); t != "" {
				h.Set("Authorization", t)
			}
			if k := resolve("api_key", s.APIKey); k != "" {
				h.Set("X-API-Key", k)
			}
			if u := resolve("url", s.URL); err == nil {
				src, err = NewAgent(s.Agent, u, h, nil)
				if err = resolvedURLError(s.URL, u, "an absolute http(s) URL without query", err); err == nil {
					err = checkNoCredentials(u)
				}
			}
		case "http":
			h := http.Header{}
			for k, v := range s.Header {
				h.Set(k, resolve("header "+k, v))
			}
			var u string
			if err == nil {
				u, err = resolveTemplate(repl, s.URL)
			}
			if err == nil {
				src, err = NewHTTP(u, h, nil)
				if err = resolvedURLError(s.URL, u, "an absolute http(s) URL template with {id}", err); err == nil {
					err = checkNoCredentials(u)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("anoncreds_registry: source %d: %v", i+1, err)
		}
		sources = append(sources, src)
	}
	return New(time.Duration(c.CacheTTL), sources...), nil
}

// templateVar is a variable of an http source's URL template, filled in
// for each lookup: not a placeholder to resolve at load.
var templateVar = regexp.MustCompile(`\{(id|kind)\}`)

// holdsPlaceholder tells whether a source URL holds a placeholder (other
// than {id} and {kind}): such a URL can only be checked once resolved.
func holdsPlaceholder(u string) bool {
	return strings.Contains(templateVar.ReplaceAllString(u, ""), "{")
}

// resolveTemplate resolves every placeholder of an http source's URL
// template but its own {id} and {kind}; an unset one fails, as for the
// source's other values.
func resolveTemplate(repl *caddy.Replacer, template string) (string, error) {
	var b strings.Builder
	last := 0
	resolve := func(part string) error {
		v, err := repl.ReplaceOrErr(part, true, true)
		if err != nil {
			return fmt.Errorf("url: %v", err)
		}
		b.WriteString(v)
		return nil
	}
	for _, m := range templateVar.FindAllStringIndex(template, -1) {
		if err := resolve(template[last:m[0]]); err != nil {
			return "", err
		}
		b.WriteString(template[m[0]:m[1]])
		last = m[1]
	}
	if err := resolve(template[last:]); err != nil {
		return "", err
	}
	return b.String(), nil
}

// checkNoCredentials refuses a source URL with userinfo: sources are
// named by their URL in errors and logs, so credentials go in token,
// api_key or a header. The error does not quote the URL.
func checkNoCredentials(raw string) error {
	u, err := url.Parse(templateVar.ReplaceAllString(raw, "x"))
	if err == nil && u.User != nil {
		return errors.New("url: must not contain credentials (give them as token, api_key or a header)")
	}
	return nil
}

// resolvedURLError words a source constructor's refusal of a resolved
// URL: its error quotes the URL, and a placeholder's value may be what
// the placeholder was there to keep out of sight, so the URL is named as
// written.
func resolvedURLError(written, resolved, want string, err error) error {
	if err == nil || written == resolved {
		return err
	}
	return fmt.Errorf("url %q: its resolved value is not %s", written, want)
}

// UnmarshalCaddyfile reads the block; the dispenser is on
// "anoncreds_registry":
//
//	anoncreds_registry {
//		files <dir>
//		agent credo|acapy <url> {
//			token   <token>
//			api_key <key>
//		}
//		http <url-template-with-{id}> {
//			header <name> <value>
//		}
//		cache_ttl <duration>
//		revocation_unchecked accept|refuse
//	}
func (c *Config) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.Errf("anoncreds_registry takes no arguments, got %q", d.Val())
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if (opt == "cache_ttl" || opt == "revocation_unchecked") && seen[opt] {
			// A second would silently replace the first.
			return d.Errf("anoncreds_registry: cannot re-declare %s", opt)
		}
		seen[opt] = true
		switch opt {
		case "files":
			var dir string
			if !d.AllArgs(&dir) {
				return d.ArgErr()
			}
			c.Sources = append(c.Sources, SourceConfig{Type: "files", Dir: dir})
		case "agent":
			s := SourceConfig{Type: "agent"}
			if !d.Args(&s.Agent, &s.URL) || d.NextArg() {
				return d.Errf("agent: want agent credo|acapy <url>")
			}
			for n := d.Nesting(); d.NextBlock(n); {
				var v string
				switch sub := d.Val(); sub {
				case "token", "api_key":
					if s.Token != "" || s.APIKey != "" {
						return d.Errf("agent: one token or api_key, not two")
					}
					if !d.AllArgs(&v) {
						return d.ArgErr()
					}
					if sub == "token" {
						s.Token = v
					} else {
						s.APIKey = v
					}
				default:
					return d.Errf("agent: unknown option %q", sub)
				}
			}
			c.Sources = append(c.Sources, s)
		case "http":
			s := SourceConfig{Type: "http"}
			if !d.AllArgs(&s.URL) {
				return d.ArgErr()
			}
			for n := d.Nesting(); d.NextBlock(n); {
				if d.Val() != "header" {
					return d.Errf("http: unknown option %q", d.Val())
				}
				var name, value string
				if !d.AllArgs(&name, &value) {
					return d.ArgErr()
				}
				if s.Header == nil {
					s.Header = map[string]string{}
				}
				for k := range s.Header {
					if strings.EqualFold(k, name) {
						return d.Errf("http: header %s given twice", name)
					}
				}
				s.Header[name] = value
			}
			c.Sources = append(c.Sources, s)
		case "cache_ttl":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil {
				return d.Errf("cache_ttl: %v", err)
			}
			c.CacheTTL = caddy.Duration(dur)
		case "revocation_unchecked":
			if !d.AllArgs(&c.RevocationUnchecked) {
				return d.ArgErr()
			}
		default:
			return d.Errf("anoncreds_registry: unknown option %q", opt)
		}
	}
	return c.Validate()
}
