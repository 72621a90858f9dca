package integration

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/proofgate/proofgate/internal/backend"
)

func init() {
	caddy.RegisterModule(panickingBackend{})
}

// panickingBackend is a backend with a bug: every call panics. It exists
// to prove that a panic costs the client a 500 with a request id, never a
// dropped connection.
type panickingBackend struct{}

func (panickingBackend) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "proofgate.backends.panicking_test", New: func() caddy.Module { return new(panickingBackend) }}
}

func (*panickingBackend) UnmarshalCaddyfile(d *caddyfile.Dispenser) error { d.Next(); return nil }

func (*panickingBackend) SendOutOfBandRequest(context.Context, backend.Org, backend.OOBRequest) (backend.OOBResult, error) {
	panic("bug in backend")
}

func (*panickingBackend) AcceptPresentation(context.Context, backend.Org, string) (backend.ProofRecord, error) {
	panic("bug in backend")
}

func (*panickingBackend) RecordOrg(context.Context, string) (string, error) {
	panic("bug in backend")
}

func TestPanicBecomes500(t *testing.T) {
	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend buggy panicking_test
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)
	for _, path := range []string{oobPath(orgA, "indy"), acceptPath("9b2c6f0e-1d3a-4c5b-8e7f-0a1b2c3d4e5f")} {
		body := indyBody
		if strings.HasPrefix(path, "/proofs/") {
			body = ""
		}
		r := postJSON(t, path, keyA, body)
		if r.status != http.StatusInternalServerError {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		m := r.json(t)
		if m["statusCode"] != float64(500) || m["error"] != "Internal Server Error" || m["requestId"] == "" {
			t.Fatalf("body %s", r.body)
		}
		if strings.Contains(string(r.body), "bug in backend") {
			t.Fatalf("500 leaks internals: %s", r.body)
		}
		// The id a client quotes finds both the cause and the request's
		// line (org, operation, backend): Caddy's request id, as its
		// access log has it.
		id, _ := m["requestId"].(string)
		for _, msg := range []string{`"internal error"`, `"handled request"`} {
			if !logHas(msg, `"request_id":"`+id+`"`) {
				t.Errorf("no %s line with the 500's request id %s in:\n%s", msg, id, testLogLines())
			}
		}
	}
}

// logHas reports whether a line of the current test's log holds every
// one of parts, waiting a little for lines written after the answer.
func logHas(parts ...string) bool {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		for line := range strings.Lines(testLogLines()) {
			if containsAll(line, parts) {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestLoadRefusedWithoutAuth(t *testing.T) {
	assertLoadError(t, globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
	}
}
`, "caddyfile", "an auth block with at least one provider")
}

func TestLoadRefusedWithoutBackend(t *testing.T) {
	assertLoadError(t, globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile", "configure at least one backend")
}

func TestLoadRefusedWithUnknownDefaultBackend(t *testing.T) {
	assertLoadError(t, globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
		default_backend agents
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile", `is not a configured backend`)
}

// TestLoadRefusedWithBackendNamedNone: "none" is what the metrics and the
// request log call requests answered before a backend was chosen; a
// backend of that name would mix its requests into them.
func TestLoadRefusedWithBackendNamedNone(t *testing.T) {
	assertLoadError(t, globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend none local {
			public_url `+base+`
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile", `backend none: the name is reserved`)
}

func TestLoadRefusedWithPlaintextMailToRemoteServer(t *testing.T) {
	assertLoadError(t, globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
		email {
			smtp smtp.example.com:25
			tls none
			from noreply@example.com
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile", "email: tls none: only allowed for a server on a loopback address")
}

// A request_log sampling block without numbers would keep no line: it is
// refused, naming how to silence the log on purpose.
func TestLoadRefusedWithSamplingThatKeepsNothing(t *testing.T) {
	assertLoadError(t, globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
		request_log {
			sampling {
				interval 1s
			}
		}
	}
}
`, "caddyfile", "exclude http.handlers.proofgate.requests")
}

// The JSON config is held to the Caddyfile's bound on max_recipients.
func TestLoadRefusedWithTooManyRecipients(t *testing.T) {
	src := globalOptions(t.TempDir()) + `
` + base + ` {
	proofgate {
		backend local local {
			public_url ` + base + `
		}
		max_recipients 1000
		auth {
			api_key ` + keyA + ` org ` + orgA + `
		}
	}
}
`
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(cfg, []byte(`"max_recipients":1000`)) {
		t.Fatalf("adapted config without max_recipients: %s", cfg)
	}
	assertLoadError(t, string(bytes.Replace(cfg, []byte(`"max_recipients":1000`), []byte(`"max_recipients":1000000`), 1)), "json", "max_recipients must be from 1 to 1000")
}
