package mail

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile reads the email block; d is positioned on "email".
// Syntax:
//
//	email {
//		smtp <host:port> [<username> <password>]
//		from "<Name <addr>>"
//		subject <text>
//		tls starttls|tls|opportunistic|none
//		ca_file <path>
//		timeout <duration>
//		max_attempts <n>
//		retry_backoff <duration>
//		workers <n>
//		retention <duration>
//		queue <name>
//	}
//
// Values are checked by Validate when Caddy loads the config.
func (c *Config) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // "email"
	if d.NextArg() {
		return d.Errf("email takes no arguments (got %q); its options go in a block", d.Val())
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if seen[opt] {
			return d.Errf("email: cannot re-declare %s", opt)
		}
		seen[opt] = true
		args := d.RemainingArgs()
		if d.NextBlock(d.Nesting()) {
			return d.Errf("email: %s takes no block", opt)
		}
		one := func() (string, error) {
			if len(args) != 1 {
				return "", d.Errf("email: %s takes one value", opt)
			}
			return args[0], nil
		}
		duration := func(dst *caddy.Duration) error {
			v, err := one()
			if err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil {
				return d.Errf("email: %s: %q is not a duration", opt, v)
			}
			if dur <= 0 {
				// As for numbers: 0 written here would be taken as the
				// default silently.
				return d.Errf("email: %s: %q is not a positive duration (leave the option out for the default)", opt, v)
			}
			*dst = caddy.Duration(dur)
			return nil
		}
		number := func(dst *int) error {
			v, err := one()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return d.Errf("email: %s: %q is not a number", opt, v)
			}
			if n < 1 {
				// In JSON 0 is the field left out (the default); written
				// here it would be taken as the default silently.
				return d.Errf("email: %s: %d is not a positive number (leave the option out for the default)", opt, n)
			}
			*dst = n
			return nil
		}
		var err error
		switch opt {
		case "smtp":
			switch len(args) {
			case 1:
				c.SMTP = args[0]
			case 3:
				c.SMTP, c.Username, c.Password = args[0], args[1], args[2]
			default:
				return d.Err("email: usage: smtp <host:port> [<username> <password>]")
			}
		case "from":
			c.From, err = one()
		case "subject":
			c.Subject, err = one()
		case "tls":
			c.TLS, err = one()
		case "ca_file":
			c.CAFile, err = one()
		case "queue":
			c.Queue, err = one()
		case "timeout":
			err = duration(&c.Timeout)
		case "retry_backoff":
			err = duration(&c.RetryBackoff)
		case "retention":
			err = duration(&c.Retention)
		case "max_attempts":
			err = number(&c.MaxAttempts)
		case "workers":
			err = number(&c.Workers)
		default:
			return d.Errf("email: unrecognized option %q", opt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Config)(nil)
