package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"
)

// TestCaddyfileAdapt runs every caddyfile_adapt/*.caddyfiletest: a
// Caddyfile, a line of dashes, then either the JSON it must adapt to or a
// substring of the error adapting it must give.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("caddyfile_adapt/*.caddyfiletest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no adapt tests: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			caddyfile, expected, ok := strings.Cut(string(data), "----------")
			if !ok {
				t.Fatal("no ---------- separator")
			}
			caddyfile, expected = strings.TrimSpace(caddyfile)+"\n", strings.TrimSpace(expected)
			if strings.HasPrefix(expected, "{") {
				caddytest.AssertAdapt(t, caddyfile, "caddyfile", expected)
				return
			}
			_, _, err = caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
			if err == nil {
				t.Fatalf("adapted without error; want one containing %q", expected)
			}
			if !strings.Contains(err.Error(), expected) {
				t.Fatalf("error %q does not contain %q", err, expected)
			}
		})
	}
}
