package mail

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// TLS modes of Config.TLS.
const (
	// TLSStartTLS requires STARTTLS on a plain connection (port 587).
	TLSStartTLS = "starttls"
	// TLSImplicit connects with TLS from the start (port 465).
	TLSImplicit = "tls"
	// TLSOpportunistic uses STARTTLS when the server offers it, else plain
	// text; passwords are still only sent over TLS (or to loopback).
	TLSOpportunistic = "opportunistic"
	// TLSNone never uses TLS; only allowed for a server on a loopback address
	// (a local relay).
	TLSNone = "none"
)

// Defaults of the optional settings.
const (
	DefaultSubject      = "Verification of your credentials"
	DefaultTimeout      = 30 * time.Second
	DefaultMaxAttempts  = 10
	DefaultRetryBackoff = 30 * time.Second
	DefaultWorkers      = 2
	DefaultRetention    = 7 * 24 * time.Hour

	// maxBackoff caps the doubling backoff (unless retry_backoff is larger):
	// with the defaults, ten attempts span about three hours.
	maxBackoff = time.Hour
)

// Config is the handler's "email" block: how invitation e-mails are sent.
type Config struct {
	// SMTP is the mail server as host:port, e.g. "smtp.example.com:587".
	// Required.
	SMTP string `json:"smtp,omitempty"`

	// Username for SMTP AUTH; empty sends no AUTH. Placeholders such as
	// {env.SMTP_USER} are resolved by the caller before use.
	Username string `json:"username,omitempty"`

	// Password for SMTP AUTH ({env.*}/{file.*} placeholders are resolved by
	// the caller). It is sent only over TLS or to a loopback server, and never
	// logged.
	Password string `json:"password,omitempty"`

	// TLS is how the connection is secured: "starttls" (default: STARTTLS is
	// required), "tls" (implicit TLS, usually port 465), "opportunistic"
	// (STARTTLS if offered), or "none" (only for a server on a loopback
	// address).
	TLS string `json:"tls,omitempty"`

	// CAFile is a PEM file of CA certificates trusted for the SMTP server in
	// addition to the system's, for a server with a private CA.
	CAFile string `json:"ca_file,omitempty"`

	// From is the sender, a bare address or with a display name:
	// "Verifier <noreply@example.com>". Required.
	From string `json:"from,omitempty"`

	// Subject of the invitation e-mails. Default: "Verification of your
	// credentials".
	Subject string `json:"subject,omitempty"`

	// Timeout bounds one SMTP session (connect, TLS, AUTH, send). Default: 30s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	// MaxAttempts is how many times a message is tried before it is marked
	// failed; permanent rejections (5xx) fail at once. Default: 10.
	MaxAttempts int `json:"max_attempts,omitempty"`

	// RetryBackoff is the wait before the second attempt; it doubles after
	// each failure, up to 1h, with jitter. Default: 30s.
	RetryBackoff caddy.Duration `json:"retry_backoff,omitempty"`

	// Workers is how many messages are sent concurrently. Default: 2.
	Workers int `json:"workers,omitempty"`

	// Retention is how long sent and failed messages stay in the outbox (for
	// their status) before they are deleted. Default: 7d.
	Retention caddy.Duration `json:"retention,omitempty"`

	// Queue names this block's outbox. Blocks sharing a storage share one
	// outbox by default; each mail is sent by a deliverer of the block that
	// queued it while one runs in the process (sender.go). Instances that
	// share a storage but not their email blocks need distinct queues.
	Queue string `json:"queue,omitempty"`
}

// withDefaults returns c with the defaults filled in.
func (c Config) withDefaults() Config {
	if c.TLS == "" {
		c.TLS = TLSStartTLS
	}
	if c.Subject == "" {
		c.Subject = DefaultSubject
	}
	if c.Timeout == 0 {
		c.Timeout = caddy.Duration(DefaultTimeout)
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = caddy.Duration(DefaultRetryBackoff)
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.Retention == 0 {
		c.Retention = caddy.Duration(DefaultRetention)
	}
	return c
}

// Validate checks the configuration; each error names the option.
func (c *Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("email: "+format, args...))
	}
	host, err := splitHostPort(c.SMTP)
	if err != nil {
		add("smtp: %v", err)
	}
	switch c.TLS {
	case "", TLSStartTLS, TLSImplicit, TLSOpportunistic:
	case TLSNone:
		if err == nil && !isLoopback(host) {
			add("tls none: only allowed for a server on a loopback address, not %q", host)
		}
	default:
		add("tls: %q is not one of starttls, tls, opportunistic, none", c.TLS)
	}
	if c.Password != "" && c.Username == "" {
		add("smtp: a password needs a username")
	}
	if c.CAFile != "" && c.TLS != TLSNone {
		if _, err := loadCAFile(c.CAFile); err != nil {
			add("ca_file: %v", err)
		}
	}
	if c.From == "" {
		add("from: required")
	} else if _, err := parseFrom(c.From); err != nil {
		add("from: %v", err)
	}
	if strings.ContainsAny(c.Subject, "\r\n") {
		add("subject: must be one line")
	} else if len(c.Subject) > 200 {
		add("subject: longer than 200 bytes")
	}
	if c.Timeout < 0 || (c.Timeout > 0 && time.Duration(c.Timeout) < time.Second) {
		add("timeout: must be at least 1s")
	}
	if c.MaxAttempts < 0 || c.MaxAttempts > 100 {
		add("max_attempts: must be between 1 and 100")
	}
	if c.RetryBackoff < 0 {
		add("retry_backoff: must be positive")
	}
	if c.Workers < 0 || c.Workers > 64 {
		add("workers: must be between 1 and 64")
	}
	if c.Retention < 0 || (c.Retention > 0 && time.Duration(c.Retention) < time.Minute) {
		add("retention: must be at least 1m")
	}
	if c.Queue != "" && !validQueue(c.Queue) {
		add("queue: %q must be 1 to 64 letters, digits, '-' or '_'", c.Queue)
	}
	return errors.Join(errs...)
}

func splitHostPort(addr string) (string, error) {
	if addr == "" {
		return "", errors.New("required (host:port)")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not host:port", addr)
	}
	if host == "" {
		return "", fmt.Errorf("%q has no host", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%q has no valid port", addr)
	}
	return host, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseFrom parses the From option: one address, display name allowed.
func parseFrom(from string) (*netmail.Address, error) {
	if strings.ContainsAny(from, "\r\n") {
		return nil, errors.New("must be one line")
	}
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("%q is not an e-mail address: %v", from, err)
	}
	if _, domain, ok := strings.Cut(a.Address, "@"); !ok || domain == "" {
		return nil, fmt.Errorf("%q has no domain", from)
	}
	return a, nil
}

func validQueue(q string) bool {
	if len(q) > 64 {
		return false
	}
	for _, c := range q {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return q != ""
}

// loadCAFile reads a PEM bundle into the system pool (or a new pool where
// the system's cannot be loaded).
func loadCAFile(name string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", name)
	}
	return pool, nil
}

// tlsConfig returns the client TLS configuration for host.
func (c *Config) tlsConfig(host string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pool, err := loadCAFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("email: ca_file: %w", err)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
