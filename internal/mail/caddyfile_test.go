package mail

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	var c Config
	err := c.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`email {
		smtp smtp.example.com:587 {env.SMTP_USER} {env.SMTP_PASS}
		from "Verifier <noreply@example.com>"
		subject "Please verify"
		tls tls
		ca_file /etc/ca.pem
		timeout 20s
		max_attempts 5
		retry_backoff 1m
		workers 3
		retention 3d
		queue eu
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{SMTP: "smtp.example.com:587", Username: "{env.SMTP_USER}", Password: "{env.SMTP_PASS}",
		From: "Verifier <noreply@example.com>", Subject: "Please verify", TLS: "tls", CAFile: "/etc/ca.pem",
		Timeout: caddy.Duration(20 * time.Second), MaxAttempts: 5, RetryBackoff: caddy.Duration(time.Minute),
		Workers: 3, Retention: caddy.Duration(72 * time.Hour), Queue: "eu"}
	if c != want {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}

	for in, wantErr := range map[string]string{
		"email x {\n}":                     "email takes no arguments",
		"email {\n smtp a:1 user\n}":       "usage: smtp <host:port>",
		"email {\n smtp a:1\n smtp b:2\n}": "cannot re-declare smtp",
		"email {\n from\n}":                "from takes one value",
		"email {\n timeout soon\n}":        `timeout: "soon" is not a duration`,
		"email {\n workers many\n}":        `workers: "many" is not a number`,
		"email {\n workers 0\n}":           `workers: 0 is not a positive number`,
		"email {\n max_attempts -1\n}":     `max_attempts: -1 is not a positive number`,
		// In JSON 0 is the option left out: written here, it would have
		// meant the default silently.
		"email {\n retry_backoff 0\n}":    `retry_backoff: "0" is not a positive duration`,
		"email {\n timeout 0s\n}":         `timeout: "0s" is not a positive duration`,
		"email {\n retention 0\n}":        `retention: "0" is not a positive duration`,
		"email {\n timeout -5s\n}":        `timeout: "-5s" is not a positive duration`,
		"email {\n sender a@b.c\n}":       `unrecognized option "sender"`,
		"email {\n subject {\n  x\n }\n}": "subject takes no block",
	} {
		var c Config
		err := c.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: err %v, want %q", in, err, wantErr)
		}
	}
}
