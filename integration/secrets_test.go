package integration

import (
	"io"
	"net/http"
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
