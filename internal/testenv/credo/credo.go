// Package credo starts a real Credo holder agent (@credo-ts 0.5, the
// framework behind Bifold mobile wallets) for tests: holder/holder.js run by
// node, with a throw-away in-memory Askar wallet, DIDComm over HTTP on a
// loopback port, present-proof 2.0 with the DIF presentation-exchange
// format and auto-accept of every proof request, driven through a small
// JSON control API on loopback:
//
//	h := credo.Start(t)                                      // skips when not installed
//	c := h.IssueSelf(t, map[string]any{"givenName": "Alice"}) // did:key, Ed25519Signature2018
//	h.ReceiveInvitation(t, invitationURL)                    // a verifier's connectionless request
//	rec := h.WaitProof(t, thid, 30*time.Second, "done")
//
// StartAnonCreds runs it with --anoncreds: @credo-ts/anoncreds with
// anoncreds-rs, an in-memory registry of legacy (unqualified) Indy
// identifiers and an issuer in the same wallet, so that IssueAnonCreds
// gives the holder a real AnonCreds credential and present-proof 2.0 also
// answers hlindy (legacy indy) and anoncreds proof requests:
//
//	h := credo.StartAnonCreds(t)
//	c := h.IssueAnonCreds(t, map[string]string{"name": "Alice", "age": "30"})
//	// c.Schema, c.CredentialDefinition: for the verifier's registry
//
// scripts/credo-holder.sh installs the npm packages (package-lock.json
// beside holder.js, `npm ci --ignore-scripts`, the FFI addon built with
// node-gyp) and Askar's native library (from the PyPI wheel) into a cache
// directory and prints it; the tests read it from $PROOFGATE_CREDO_HOLDER.
// Unset, or without node on PATH, every test using Start skips with one
// line: with $PROOFGATE_CREDO_HOLDER_SKIP's when scripts/test.sh could not
// install the holder. The holder runs in its own process group and is
// killed when the test ends; its output is logged when the test fails.
package credo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/proc"
)

// Environment variables read by this package; scripts/credo-holder.sh and
// scripts/test.sh set the same ones.
const (
	// EnvHolder is the install directory scripts/credo-holder.sh prints:
	// node_modules/ with the pinned packages, lib/libaries_askar.so and
	// lib/libanoncreds.so.
	EnvHolder = "PROOFGATE_CREDO_HOLDER"
	// EnvSkip, set by scripts/test.sh when the holder could not be
	// installed, is the one line the tests skip with.
	EnvSkip = "PROOFGATE_CREDO_HOLDER_SKIP"
	// EnvLogLevel sets Credo's log level (debug, info, warn, error;
	// default info): debug logs every DIDComm message in and out, which
	// the holder's output shows when a test fails.
	EnvLogLevel = "PROOFGATE_CREDO_HOLDER_LOG"
)

// InstallCommand is what a developer runs to install the holder.
const InstallCommand = `export ` + EnvHolder + `="$(bash scripts/credo-holder.sh)"`

// Holder is a running Credo holder, owned by the test that started it.
type Holder struct {
	// ControlURL is the control API base, e.g. "http://127.0.0.1:41235".
	ControlURL string
	// Endpoint is the holder's DIDComm endpoint (inbound HTTP), which it
	// puts in the ~service of its messages.
	Endpoint string
	// CredoVersion and AskarVersion are what the holder reports on /status
	// (@credo-ts/core's version and the native library's); AnonCredsVersion
	// is libanoncreds' (StartAnonCreds only).
	CredoVersion, AskarVersion, AnonCredsVersion string
	// StartupTime is how long the holder took to be ready.
	StartupTime time.Duration

	client *http.Client
	logs   *proc.Tail
	stop   func()
}

// Credential is a credential the holder signed itself and stored.
type Credential struct {
	RecordID   string         `json:"recordId"`
	IssuerDID  string         `json:"issuerDid"`
	HolderDID  string         `json:"holderDid"`
	Credential map[string]any `json:"credential"` // a JSON-LD credential
	JWT        string         `json:"jwt"`        // a VC-JWT (IssueSelfJWT)
}

// AnonCredsCredential is an AnonCreds credential the holder was issued
// (IssueAnonCreds), with the objects a verifier resolves, as the holder's
// registry answers for the legacy identifiers: the schema (issuerId, name,
// version, attrNames) and the credential definition (issuerId, schemaId,
// type CL, tag, value.primary), AnonCreds JSON.
type AnonCredsCredential struct {
	CredentialID           string          `json:"credentialId"`
	IssuerID               string          `json:"issuerId"`
	SchemaID               string          `json:"schemaId"`
	CredentialDefinitionID string          `json:"credentialDefinitionId"`
	Schema                 json.RawMessage `json:"schema"`
	CredentialDefinition   json.RawMessage `json:"credentialDefinition"`
	// The did:indy forms the issuer registered them under.
	QualifiedSchemaID               string `json:"qualifiedSchemaId"`
	QualifiedCredentialDefinitionID string `json:"qualifiedCredentialDefinitionId"`
	// Values are the credential's values: {name: {raw, encoded}}.
	Values map[string]struct {
		Raw     string `json:"raw"`
		Encoded string `json:"encoded"`
	} `json:"values"`
}

// ProofRecord summarises one of the holder's proof exchange records.
type ProofRecord struct {
	ID              string `json:"id"`
	ThreadID        string `json:"threadId"`
	ParentThreadID  string `json:"parentThreadId"`
	State           string `json:"state"`
	ProtocolVersion string `json:"protocolVersion"`
	ErrorMessage    string `json:"errorMessage"`
	ConnectionID    string `json:"connectionId"`
}

// ProofDetail is one record with Credo's format data: the request it got
// and the presentation it sent, as Credo stores them.
type ProofDetail struct {
	ProofRecord
	FormatData struct {
		Request      json.RawMessage `json:"request"`
		Presentation json.RawMessage `json:"presentation"`
	} `json:"formatData"`
}

// installDir returns $PROOFGATE_CREDO_HOLDER and node, or skips t with one
// line when the holder is not installed, and fails it when the variable
// points at something that is not an install.
func installDir(t testing.TB) (dir, node string) {
	t.Helper()
	dir = os.Getenv(EnvHolder)
	if dir == "" {
		if reason := os.Getenv(EnvSkip); reason != "" {
			t.Skip(reason)
		}
		t.Skipf("Credo holder test skipped: %s is not set; install the holder with `%s` (needs node >= 18, npm, python3 and a C++ compiler)", EnvHolder, InstallCommand)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("Credo holder test skipped: node is not on PATH (install Node.js >= 18): %v", err)
	}
	for _, p := range []string{"node_modules/@credo-ts/core/package.json", "lib"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Fatalf("%s=%q is not a Credo holder install (%v); run `%s`", EnvHolder, dir, err, InstallCommand)
		}
	}
	return dir, node
}

// Script returns the path of holder.js, beside this file in the source tree.
func Script() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the credo package's source")
	}
	p := filepath.Join(filepath.Dir(file), "holder", "holder.js")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// RunScript runs the script name of the holder directory (beside
// holder.js) with node, against the holder install, and returns what it
// printed on stdout. It skips t as Start does when the holder is not
// installed.
func RunScript(t testing.TB, name string) []byte {
	t.Helper()
	dir, node := installDir(t)
	holder, err := Script()
	if err != nil {
		t.Fatalf("holder script: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(filepath.Dir(holder), name))
	cmd.Env = holderEnv(dir, t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, tail(stderr.String(), 8<<10))
	}
	return out
}

// Start runs a fresh holder for t and stops it when t ends. It skips t
// when the holder is not installed (see the package doc) and fails it when
// the holder does not come up within a minute.
func Start(t testing.TB) *Holder {
	t.Helper()
	return start(t, false)
}

// StartAnonCreds is Start with AnonCreds (see the package doc). It fails t
// when the install predates AnonCreds (no @credo-ts/anoncreds or
// libanoncreds.so): run scripts/credo-holder.sh again.
func StartAnonCreds(t testing.TB) *Holder {
	t.Helper()
	return start(t, true)
}

func start(t testing.TB, anoncreds bool) *Holder {
	t.Helper()
	dir, node := installDir(t)
	if anoncreds {
		for _, p := range []string{"node_modules/@credo-ts/anoncreds/package.json", "lib/libanoncreds.so"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Fatalf("%s=%q has no AnonCreds (%v): an install from before; run `%s` again", EnvHolder, dir, err, InstallCommand)
			}
		}
	}
	script, err := Script()
	if err != nil {
		t.Fatalf("holder script: %v", err)
	}
	h, err := launch(node, script, dir, t.TempDir(), time.Minute, anoncreds)
	if err != nil {
		t.Fatalf("starting the Credo holder (%s %s): %v", node, script, err)
	}
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("Credo holder output:\n%s", h.Logs())
		}
	})
	extra := ""
	if anoncreds {
		extra = ", anoncreds " + h.AnonCredsVersion
	}
	t.Logf("Credo %s holder (askar %s%s) ready in %v: control %s, endpoint %s",
		h.CredoVersion, h.AskarVersion, extra, h.StartupTime.Round(time.Millisecond), h.ControlURL, h.Endpoint)
	return h
}

func launch(node, script, dir, home string, timeout time.Duration, anoncreds bool) (*Holder, error) {
	h := &Holder{client: &http.Client{Timeout: 60 * time.Second}, logs: &proc.Tail{}}
	args := []string{script, "--label", "proofgate-credo-holder", "--max-lifetime", "900"}
	if anoncreds {
		args = append(args, "--anoncreds")
	}
	if level := os.Getenv(EnvLogLevel); level != "" {
		args = append(args, "--log-level", level)
	}
	cmd := exec.Command(node, args...)
	cmd.Env = holderEnv(dir, home)
	cmd.Dir = home
	stdout := newReadyScanner(h.logs)
	cmd.Stdout = stdout
	cmd.Stderr = h.logs
	cmd.WaitDelay = 5 * time.Second
	// The holder exits when its stdin closes: the test binary died.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	began := time.Now()
	run, err := proc.Start(cmd)
	if err != nil {
		return nil, err
	}
	h.stop = func() {
		stdin.Close()
		run.Stop()
	}

	fail := func(err error) (*Holder, error) {
		h.stop()
		return nil, fmt.Errorf("%v; holder output:\n%s", err, tail(h.Logs(), 8<<10))
	}
	var ready readyLine
	select {
	case ready = <-stdout.ready:
	case <-run.Exited():
		return fail(fmt.Errorf("the holder exited before it was ready (%v)", run.Err()))
	case <-time.After(timeout):
		return fail(fmt.Errorf("the holder was not ready after %v", timeout))
	}
	h.ControlURL, h.Endpoint = ready.Control, ready.Endpoint
	var st struct {
		CredoVersion     string `json:"credoVersion"`
		AskarVersion     string `json:"askarVersion"`
		AnonCredsVersion string `json:"anoncredsVersion"`
		Endpoint         string `json:"endpoint"`
	}
	if err := h.call(context.Background(), http.MethodGet, "/status", nil, &st); err != nil {
		return fail(err)
	}
	if st.Endpoint != h.Endpoint {
		return fail(fmt.Errorf("GET /status says endpoint %q, the ready line %q: another process answers", st.Endpoint, h.Endpoint))
	}
	h.CredoVersion, h.AskarVersion, h.AnonCredsVersion = st.CredoVersion, st.AskarVersion, st.AnonCredsVersion
	h.StartupTime = time.Since(began)
	return h, nil
}

// holderEnv is the test's environment without NODE_OPTIONS (a developer's
// flags would change the holder), with NODE_PATH, LIB_ARIES_ASKAR_PATH and
// LIB_ANONCREDS_PATH pointing into the install and HOME in the test's temporary directory, so
// that nothing is written under the real home.
func holderEnv(dir, home string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"NODE_OPTIONS=", "NODE_PATH=", "LIB_ARIES_ASKAR_PATH=", "LIB_ANONCREDS_PATH=", "HOME="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	})
	return append(env,
		"NODE_PATH="+filepath.Join(dir, "node_modules"),
		"LIB_ARIES_ASKAR_PATH="+filepath.Join(dir, "lib"),
		"LIB_ANONCREDS_PATH="+filepath.Join(dir, "lib"),
		"HOME="+home,
	)
}

// call sends one control API request; body is sent as JSON unless nil, and
// a 2xx answer is decoded into out unless nil. Other statuses are errors
// carrying the holder's message.
func (h *Holder) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.ControlURL+path, rd)
	if err != nil {
		return err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return nil
}

// IssueSelf has the holder sign itself a W3C JSON-LD credential with the
// given subject claims (did:key issuer, Ed25519Signature2018, the subject
// the holder's own did:key, contexts credentials/v1 and an inline @vocab)
// and store it in its wallet.
func (h *Holder) IssueSelf(t testing.TB, claims map[string]any) Credential {
	t.Helper()
	return h.issueSelf(t, map[string]any{"claims": claims})
}

// IssueSelfJWT is IssueSelf with a VC-JWT instead (the claims in its vc
// claim), which Credo presents as a jwt_vp: alg "EdDSA" (Ed25519
// did:keys, the ones IssueSelf uses) or "ES256" (a P-256 issuer and
// subject of their own).
func (h *Holder) IssueSelfJWT(t testing.TB, alg string, claims map[string]any) Credential {
	t.Helper()
	return h.issueSelf(t, map[string]any{"claims": claims, "format": "jwt_vc", "alg": alg})
}

func (h *Holder) issueSelf(t testing.TB, body map[string]any) Credential {
	t.Helper()
	var c Credential
	if err := h.call(context.Background(), http.MethodPost, "/credentials", body, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// IssueAnonCreds has the holder's issuer (StartAnonCreds only) register a
// schema with the given attribute names and a credential definition (no
// revocation), issue the holder a credential with those raw values and
// store it in its wallet.
func (h *Holder) IssueAnonCreds(t testing.TB, attributes map[string]string) AnonCredsCredential {
	t.Helper()
	var c AnonCredsCredential
	if err := h.call(context.Background(), http.MethodPost, "/anoncreds/credentials", map[string]any{"attributes": attributes}, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// ReceiveInvitation hands the holder an out-of-band invitation URL (long
// ?oob= or short); with a connectionless request attached it answers at
// once (auto-accept).
func (h *Holder) ReceiveInvitation(t testing.TB, invitationURL string) {
	t.Helper()
	if err := h.call(context.Background(), http.MethodPost, "/receive", map[string]any{"invitationUrl": invitationURL}, nil); err != nil {
		t.Fatal(err)
	}
}

// Proofs returns the holder's proof exchange records.
func (h *Holder) Proofs(t testing.TB) []ProofRecord {
	t.Helper()
	var recs []ProofRecord
	if err := h.call(context.Background(), http.MethodGet, "/proofs", nil, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// Proof returns one record with its format data.
func (h *Holder) Proof(t testing.TB, id string) ProofDetail {
	t.Helper()
	var d ProofDetail
	if err := h.call(context.Background(), http.MethodGet, "/proofs/"+url.PathEscape(id), nil, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// WaitProof polls until the holder's record on thread thid is in one of
// states and returns it; it fails t after timeout, or at once when the
// record is abandoned and that is not wanted.
func (h *Holder) WaitProof(t testing.TB, thid string, timeout time.Duration, states ...string) ProofRecord {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := "no record"
	for {
		for _, r := range h.Proofs(t) {
			if r.ThreadID != thid {
				continue
			}
			if slices.Contains(states, r.State) {
				return r
			}
			last = "state " + r.State
			if r.State == "abandoned" {
				t.Fatalf("the holder's record on thread %s is abandoned (%s), want %v", thid, r.ErrorMessage, states)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the holder's record on thread %s: %s after %v, want %v", thid, last, timeout, states)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Logs returns the holder's output so far (the last 256 KiB). It holds no
// secret: the wallet key is random, in memory only, and Credo masks it.
func (h *Holder) Logs() string { return h.logs.String() }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
