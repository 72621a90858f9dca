package integration

import (
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExampleKeepsSecretsOutOfTheConfigDump runs examples/Caddyfile as the
// README documents it, with the API key in PROOFGATE_API_KEY, and reads
// back what Caddy's admin API and its autosave.json show: the key must not
// be there (only the {env.PROOFGATE_API_KEY} placeholder), and the demo
// key must not work once a real key is set.
func TestExampleKeepsSecretsOutOfTheConfigDump(t *testing.T) {
	const key = "a-real-key-from-the-vault-0123456789"
	s := runExample(t, freePort(t), "PROOFGATE_DATA="+t.TempDir(), "PROOFGATE_API_KEY="+key)
	if status, body := s.post(oobPath(demoOrg, "indy"), key, indyBody); status != http.StatusCreated {
		t.Fatalf("with the key from the environment: %d %s", status, body)
	}
	if status, _ := s.post(oobPath(demoOrg, "indy"), demoKey, indyBody); status != http.StatusUnauthorized {
		t.Fatalf("the demo key works although PROOFGATE_API_KEY is set: %d", status)
	}

	resp, err := noKeepAlive.Get(s.admin + "/config/")
	if err != nil {
		t.Fatal(err)
	}
	dump, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(dump), `{env.PROOFGATE_API_KEY}`) {
		t.Fatalf("GET /config/: %d %s", resp.StatusCode, dump)
	}
	if strings.Contains(string(dump), key) {
		t.Errorf("GET /config/ shows the API key:\n%s", dump)
	}

	autosave := filepath.Join(s.home, "caddy", "autosave.json")
	var saved []byte
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if saved, err = os.ReadFile(autosave); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("autosave.json: %v", err)
	}
	if strings.Contains(string(saved), key) {
		t.Errorf("autosave.json holds the API key")
	}
	if strings.Contains(s.logs.String(), key) {
		t.Errorf("the log shows the API key")
	}
}

// offMachineAddr returns a non-loopback IPv4 address of this machine, or
// skips: the test needs a caller whose connection is not loopback.
func offMachineAddr(t *testing.T) string {
	t.Helper()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address on this machine")
	return ""
}

// postVia sends a create to the server's port at addr, with the server's
// own Host, and extra headers.
func (s *exampleServer) postVia(addr string, headers ...string) int {
	s.t.Helper()
	u, _ := url.Parse(s.url)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+":"+u.Port()+oobPath(demoOrg, "indy"), strings.NewReader(indyBody))
	req.Host = u.Host
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := noKeepAlive.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDemoCredentialsOnlyOnLoopback: run as documented without their
// variables, the examples' demo credentials work from this machine and not
// from any other address of it (a public interface).
func TestDemoCredentialsOnlyOnLoopback(t *testing.T) {
	public := offMachineAddr(t)
	t.Run("examples/Caddyfile demo key", func(t *testing.T) {
		s := runExample(t, freePort(t), "PROOFGATE_DATA="+t.TempDir())
		if st := s.postVia("127.0.0.1", "Authorization: Bearer "+demoKey); st != http.StatusCreated {
			t.Fatalf("demo key from loopback: %d\n%s", st, s.logs)
		}
		if st := s.postVia(public, "Authorization: Bearer "+demoKey); st != http.StatusUnauthorized {
			t.Fatalf("demo key from %s: %d, want 401", public, st)
		}
	})
	t.Run("examples/basicauth.Caddyfile demo users", func(t *testing.T) {
		s := runExampleFile(t, "../examples/basicauth.Caddyfile", freePort(t), "PROOFGATE_DATA="+t.TempDir())
		alice := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("alice:alice-demo-password"))
		if st := s.postVia("127.0.0.1", alice); st != http.StatusCreated {
			t.Fatalf("demo user from loopback: %d\n%s", st, s.logs)
		}
		if st := s.postVia(public, alice); st != http.StatusForbidden {
			t.Fatalf("demo user from %s: %d, want 403", public, st)
		}
	})
}

// One API key in two api_key groups (parted by another provider) is
// refused at load: the first group would decide alone, and the org of the
// other would silently never apply.
func TestSameAPIKeyInTwoProvidersRefused(t *testing.T) {
	config := `{
	admin off
	storage file_system ` + t.TempDir() + `
}
` + base + ` {
	proofgate {
		backend local local {
			public_url ` + base + `
		}
		auth {
			api_key {env.PG_TWICE_KEY} org ` + orgA + `
			jwt {
				jwks_url https://idp.test/certs
				issuer https://idp.test
			}
			api_key {env.PG_TWICE_KEY} org ` + orgB + `
		}
	}
}
`
	t.Setenv("PG_TWICE_KEY", "a-key-given-twice-0123456789")
	err := validateCaddyfile(t, "Caddyfile", []byte(config))
	if err == nil || !strings.Contains(err.Error(), "same API key") {
		t.Fatalf("load: %v; want a refusal naming the key given twice", err)
	}
}
