package integration

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The README's quick start, run as written: its shell blocks in order,
// against the built binary running examples/Caddyfile (what `go run
// ./cmd/caddy run` runs). Only the port is changed (a free one for the
// fixed :8080) and the holder binary is built outside the checkout.
func TestReadmeQuickStart(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("README quick start test skipped: %s is not installed", tool)
		}
	}
	blocks := readmeBlocks(t, "## Quick start", "sh")
	if len(blocks) < 3 {
		t.Fatalf("the quick start has %d shell blocks", len(blocks))
	}
	const serverCommand = "PROOFGATE_ALLOW_PRIVATE_ENDPOINTS=true go run ./cmd/caddy run --config examples/Caddyfile"
	if strings.TrimSpace(blocks[0]) != serverCommand {
		t.Fatalf("the quick start's first block is\n%s\nwant\n%s", blocks[0], serverCommand)
	}

	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	runExample(t, port, "PROOFGATE_DATA="+t.TempDir(), "PROOFGATE_ALLOW_PRIVATE_ENDPOINTS=true")

	script := strings.Join(blocks[1:], "\n")
	holder := filepath.Join(t.TempDir(), "holder")
	for old, repl := range map[string]string{
		"localhost:8080":                       addr,
		"go build -o holder ./examples/holder": "go build -o " + holder + " ./examples/holder",
		"./holder ":                            holder + " ",
	} {
		if !strings.Contains(script, old) {
			t.Fatalf("the quick start no longer contains %q; update this test", old)
		}
		script = strings.ReplaceAll(script, old, repl)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script+"\nwait\n")
	cmd.Dir = ".."
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the quick start failed: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"holder: presentation sent",
		"holder: ack received (status OK)",
		"\ndone\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, got)
		}
	}
}

// readmeBlocks returns the fenced code blocks of one language in the
// README section that starts with heading.
func readmeBlocks(t *testing.T, heading, lang string) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q section", heading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "\n```"+lang+"\n")
		if !ok {
			return blocks
		}
		block, after, _ := strings.Cut(rest, "\n```\n")
		blocks = append(blocks, block)
		section = after
	}
}

var (
	holderOnce sync.Once
	holderBin  string
	holderErr  error
)

// holderBinary builds the demo holder (examples/holder) once per run.
func holderBinary(t *testing.T) string {
	t.Helper()
	holderOnce.Do(func() {
		dir, err := os.MkdirTemp("", "proofgate-holder")
		if err != nil {
			holderErr = err
			return
		}
		holderBin = filepath.Join(dir, "holder")
		if out, err := exec.Command("go", "build", "-o", holderBin, "../examples/holder").CombinedOutput(); err != nil {
			holderErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if holderErr != nil {
		t.Fatal(holderErr)
	}
	return holderBin
}

// The demo holder answers a presentationExchange request with a credential
// it issued and signed itself, which the local verifier verifies; and it
// explains, without presenting, a request it cannot answer.
func TestDemoHolder(t *testing.T) {
	startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, peBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	out, err := exec.Command(holderBinary(t), "--attr", "license=B", data["invitationUrl"].(string)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "presentation sent") {
		t.Fatalf("holder: %v\n%s", err, out)
	}
	rec := postJSON(t, acceptPath(data["proofRecordId"].(string)), keyA, "")
	if rec.status != http.StatusOK {
		t.Fatalf("accept: %d %s", rec.status, rec.body)
	}
	if m := rec.json(t); m["state"] != "done" || m["isVerified"] != true {
		t.Fatalf("record %s", rec.body)
	}

	// indyBody asks for a predicate and a restricted attribute: only an
	// issued credential proves those.
	r = postJSON(t, oobPath(orgA, "indy"), keyA, strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true`, 1))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data = r.json(t)["data"].(map[string]any)
	out, err = exec.Command(holderBinary(t), data["invitationUrl"].(string)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), `predicate "pred1" (age >= 18)`) {
		t.Fatalf("holder answered a request it cannot prove: %v\n%s", err, out)
	}
}
