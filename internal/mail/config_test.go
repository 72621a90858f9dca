package mail

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

func TestConfigValidate(t *testing.T) {
	_, caFile := testCert(t)
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	valid := Config{SMTP: "smtp.example.com:587", From: "Verifier <noreply@example.com>"}
	tests := []struct {
		name string
		edit func(*Config)
		want string // substring of the error; "" = valid
	}{
		{"minimal", func(*Config) {}, ""},
		{"everything", func(c *Config) {
			c.Username, c.Password, c.TLS, c.CAFile = "u", "p", TLSImplicit, caFile
			c.Subject, c.Timeout, c.MaxAttempts = "Hi", caddy.Duration(time.Minute), 5
			c.RetryBackoff, c.Workers, c.Retention, c.Queue = caddy.Duration(time.Second), 4, caddy.Duration(time.Hour), "eu-1"
		}, ""},
		{"bare from", func(c *Config) { c.From = "noreply@example.com" }, ""},
		{"opportunistic", func(c *Config) { c.TLS = TLSOpportunistic }, ""},
		{"none on loopback", func(c *Config) { c.SMTP, c.TLS = "127.0.0.1:25", TLSNone }, ""},
		{"none on localhost", func(c *Config) { c.SMTP, c.TLS = "localhost:25", TLSNone }, ""},
		{"none on ::1", func(c *Config) { c.SMTP, c.TLS = "[::1]:25", TLSNone }, ""},
		{"username without password", func(c *Config) { c.Username = "u" }, ""},

		{"no smtp", func(c *Config) { c.SMTP = "" }, "email: smtp: required"},
		{"no port", func(c *Config) { c.SMTP = "smtp.example.com" }, "email: smtp:"},
		{"bad port", func(c *Config) { c.SMTP = "smtp.example.com:0" }, "email: smtp:"},
		{"port too big", func(c *Config) { c.SMTP = "smtp.example.com:70000" }, "email: smtp:"},
		{"no host", func(c *Config) { c.SMTP = ":25" }, "email: smtp:"},
		{"password without username", func(c *Config) { c.Password = "p" }, "email: smtp: a password needs a username"},
		{"unknown tls", func(c *Config) { c.TLS = "ssl" }, "email: tls:"},
		{"none on a remote host", func(c *Config) { c.TLS = TLSNone }, "email: tls none:"},
		{"missing ca file", func(c *Config) { c.CAFile = "/nonexistent/ca.pem" }, "email: ca_file:"},
		{"ca file without PEM", func(c *Config) { c.CAFile = notPEM }, "email: ca_file:"},
		{"no from", func(c *Config) { c.From = "" }, "email: from: required"},
		{"from not an address", func(c *Config) { c.From = "Verifier" }, "email: from:"},
		{"from with two addresses", func(c *Config) { c.From = "a@example.com, b@example.com" }, "email: from:"},
		{"from without domain", func(c *Config) { c.From = "Verifier <noreply@>" }, "email: from:"},
		{"from with newline", func(c *Config) { c.From = "a@example.com\r\nBcc: x@example.com" }, "email: from:"},
		{"subject with newline", func(c *Config) { c.Subject = "Hi\r\nBcc: x@example.com" }, "email: subject:"},
		{"long subject", func(c *Config) { c.Subject = strings.Repeat("a", 201) }, "email: subject:"},
		{"negative timeout", func(c *Config) { c.Timeout = -1 }, "email: timeout:"},
		{"tiny timeout", func(c *Config) { c.Timeout = caddy.Duration(time.Millisecond) }, "email: timeout:"},
		{"negative attempts", func(c *Config) { c.MaxAttempts = -1 }, "email: max_attempts:"},
		{"too many attempts", func(c *Config) { c.MaxAttempts = 101 }, "email: max_attempts:"},
		{"negative backoff", func(c *Config) { c.RetryBackoff = -1 }, "email: retry_backoff:"},
		{"too many workers", func(c *Config) { c.Workers = 65 }, "email: workers:"},
		{"negative workers", func(c *Config) { c.Workers = -1 }, "email: workers:"},
		{"short retention", func(c *Config) { c.Retention = caddy.Duration(time.Second) }, "email: retention:"},
		{"bad queue", func(c *Config) { c.Queue = "../x" }, "email: queue:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			tt.edit(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v", err)
			case tt.want != "" && err == nil:
				t.Fatal("Validate() accepted it")
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

// All problems are reported at once.
func TestConfigValidateReportsAll(t *testing.T) {
	err := (&Config{TLS: "x", Workers: -1}).Validate()
	for _, want := range []string{"smtp", "tls", "from", "workers"} {
		if err == nil || !strings.Contains(err.Error(), "email: "+want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}

func TestConfigJSON(t *testing.T) {
	var c Config
	in := `{"smtp":"smtp.example.com:465","username":"u","password":"p","tls":"tls","ca_file":"/ca.pem",
		"from":"V <v@example.com>","subject":"S","timeout":"10s","max_attempts":3,"retry_backoff":"1m",
		"workers":1,"retention":"2d","queue":"q"}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	want := Config{SMTP: "smtp.example.com:465", Username: "u", Password: "p", TLS: "tls", CAFile: "/ca.pem",
		From: "V <v@example.com>", Subject: "S", Timeout: caddy.Duration(10 * time.Second), MaxAttempts: 3,
		RetryBackoff: caddy.Duration(time.Minute), Workers: 1, Retention: caddy.Duration(48 * time.Hour), Queue: "q"}
	if c != want {
		t.Fatalf("decoded %+v", c)
	}
}

func TestDefaults(t *testing.T) {
	c := Config{SMTP: "smtp.example.com:587", From: "v@example.com"}.withDefaults()
	if c.TLS != TLSStartTLS || c.Subject != DefaultSubject || time.Duration(c.Timeout) != DefaultTimeout ||
		c.MaxAttempts != DefaultMaxAttempts || time.Duration(c.RetryBackoff) != DefaultRetryBackoff ||
		c.Workers != DefaultWorkers || time.Duration(c.Retention) != DefaultRetention {
		t.Fatalf("defaults %+v", c)
	}
}

func TestBackoff(t *testing.T) {
	d := &Deliverer{cfg: Config{RetryBackoff: caddy.Duration(30 * time.Second)}}
	tests := []struct {
		attempt int
		full    time.Duration // the doubled value; the backoff lies in its upper half
	}{
		{1, 30 * time.Second},
		{2, time.Minute},
		{3, 2 * time.Minute},
		{7, 32 * time.Minute},
		{8, time.Hour},
		{50, time.Hour},
	}
	for _, tt := range tests {
		for range 100 {
			if got := d.defaultBackoff(tt.attempt); got < tt.full/2 || got > tt.full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", tt.attempt, got, tt.full/2, tt.full)
			}
		}
	}
	// A first backoff above the cap is kept, not lowered.
	d.cfg.RetryBackoff = caddy.Duration(2 * time.Hour)
	if got := d.defaultBackoff(5); got < time.Hour || got > 2*time.Hour {
		t.Fatalf("backoff with a 2h base = %v", got)
	}
}
