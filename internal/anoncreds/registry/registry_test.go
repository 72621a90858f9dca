package registry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/anoncreds"
)

// The corpus registry (made by scripts/anoncreds-gen with the reference).
var corpusRegistry = filepath.Join("..", "..", "..", "testdata", "anoncreds", "registry")

const (
	personSchema = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
	personDef    = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
	degreeDef    = "did:web:issuer.example.com/cred-defs/degree"
)

func corpusDocs(t *testing.T) (schemas, defs map[string]json.RawMessage) {
	t.Helper()
	for name, m := range map[string]*map[string]json.RawMessage{"schemas.json": &schemas, "cred_defs.json": &defs} {
		data, err := os.ReadFile(filepath.Join(corpusRegistry, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, m); err != nil {
			t.Fatal(err)
		}
	}
	return schemas, defs
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFiles(t *testing.T) {
	schemas, defs := corpusDocs(t)
	dir := t.TempDir()
	// A bundle, a credo-style resolution result, an ACA-Py-style one and
	// a legacy document with its own id.
	writeJSON(t, filepath.Join(dir, "bundle.json"), map[string]any{"schemas": schemas})
	writeJSON(t, filepath.Join(dir, "credo.json"), map[string]any{"credentialDefinitionId": degreeDef, "credentialDefinition": defs[degreeDef]})
	writeJSON(t, filepath.Join(dir, "acapy.json"), map[string]any{"credential_definition_id": personDef, "credential_definition": defs[personDef]})
	var legacy map[string]any
	_ = json.Unmarshal(defs[personDef], &legacy)
	legacy["id"] = "55GkHamhTU1ZbTbV2ab9DE:3:CL:99:legacy"
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(dir, "sub", "legacy.json"), legacy)
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}

	f, err := LoadFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := New(0, f)
	ctx := context.Background()
	if s, err := r.Schema(ctx, personSchema); err != nil || s.Name != "person" || s.IssuerID != "55GkHamhTU1ZbTbV2ab9DE" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, id := range []string{personDef, degreeDef, "55GkHamhTU1ZbTbV2ab9DE:3:CL:99:legacy"} {
		if d, err := r.CredentialDefinition(ctx, id); err != nil || d.Key == nil {
			t.Fatalf("%s: %+v %v", id, d, err)
		}
	}
	if _, err := r.CredentialDefinition(ctx, "nope"); !errors.Is(err, anoncreds.ErrUnknown) {
		t.Fatalf("unknown id: %v", err)
	}

	// A broken document fails the load, naming the file.
	writeJSON(t, filepath.Join(dir, "broken.json"), map[string]any{"schemas": map[string]any{"x:2:a:1": map[string]any{"name": "a"}}})
	if _, err := LoadFiles(dir); err == nil || !strings.Contains(err.Error(), "broken.json") {
		t.Fatalf("broken file: %v", err)
	}
}

func TestHTTPAndCache(t *testing.T) {
	schemas, defs := corpusDocs(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("X-Key") != "k1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		// The template is /{kind}/{id}; the id arrives path-escaped.
		kind, id, _ := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
		switch {
		case id == "down":
			w.WriteHeader(http.StatusBadGateway)
		case kind == "schema" && schemas[unescape(t, id)] != nil:
			_, _ = w.Write(schemas[unescape(t, id)])
		case kind == "credential-definition" && defs[unescape(t, id)] != nil:
			_ = json.NewEncoder(w).Encode(map[string]any{"credentialDefinition": defs[unescape(t, id)]})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	src, err := NewHTTP(srv.URL+"/{kind}/{id}", http.Header{"X-Key": {"k1"}}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	r := New(time.Minute, src)
	now := time.Unix(1700000000, 0)
	r.cache.SetClock(func() time.Time { return now })
	ctx := context.Background()

	if _, err := r.CredentialDefinition(ctx, degreeDef); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Schema(ctx, personSchema); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CredentialDefinition(ctx, degreeDef); err != nil || hits.Load() != 2 {
		t.Fatalf("cached lookup went out: %d hits, %v", hits.Load(), err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := r.CredentialDefinition(ctx, degreeDef); err != nil || hits.Load() != 3 {
		t.Fatalf("expired entry not fetched again: %d hits, %v", hits.Load(), err)
	}
	// Unknown: remembered briefly.
	if _, err := r.CredentialDefinition(ctx, "nope"); !errors.Is(err, anoncreds.ErrUnknown) {
		t.Fatal(err)
	}
	if _, err := r.CredentialDefinition(ctx, "nope"); !errors.Is(err, anoncreds.ErrUnknown) || hits.Load() != 4 {
		t.Fatalf("unknown id fetched again at once: %d", hits.Load())
	}
	// A source that fails is an error, not "unknown"; it is asked again
	// after at most 30s.
	if _, err := r.CredentialDefinition(ctx, "down"); err == nil || errors.Is(err, anoncreds.ErrUnknown) || !strings.Contains(err.Error(), "HTTP 502") {
		t.Fatal(err)
	}
	if _, err := r.CredentialDefinition(ctx, "down"); err == nil || hits.Load() != 5 {
		t.Fatalf("failure asked again at once: %d", hits.Load())
	}
	now = now.Add(31 * time.Second)
	if _, err := r.CredentialDefinition(ctx, "down"); err == nil || hits.Load() != 6 {
		t.Fatalf("failure not asked again: %d", hits.Load())
	}
	// Ids that no registry uses never leave the process.
	for _, id := range []string{strings.Repeat("a", 600), "..", ".", "a\nb", ""} {
		if _, err := r.Schema(ctx, id); !errors.Is(err, anoncreds.ErrUnknown) || hits.Load() != 6 {
			t.Fatalf("%q: %v", id, err)
		}
	}
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	u, err := urlPathUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAgentPaths(t *testing.T) {
	schemas, defs := corpusDocs(t)
	for _, flavor := range []string{FlavorCredo, FlavorACAPy} {
		var paths []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			paths = append(paths, r.URL.Path)
			switch {
			case flavor == FlavorCredo && r.Header.Get("Authorization") != "tok":
				w.WriteHeader(http.StatusUnauthorized)
			case flavor == FlavorACAPy && r.Header.Get("X-API-Key") != "key":
				w.WriteHeader(http.StatusUnauthorized)
			// credo-controller answers the document itself on its
			// newer path; ACA-Py wraps it on the legacy one.
			case r.URL.Path == "/anoncreds/schemas/"+personSchema:
				_, _ = w.Write(schemas[personSchema])
			case r.URL.Path == "/anoncreds/schema/"+personSchema:
				_ = json.NewEncoder(w).Encode(map[string]any{"schema_id": personSchema, "schema": schemas[personSchema]})
			case r.URL.Path == "/credential-definitions/"+personDef:
				_ = json.NewEncoder(w).Encode(map[string]any{"credential_definition": defs[personDef]})
			case r.URL.Path == "/schemas/unknown":
				_, _ = w.Write([]byte(`{"schema":null}`))
			default:
				http.NotFound(w, r)
			}
		}))
		h := http.Header{}
		if flavor == FlavorCredo {
			h.Set("Authorization", "tok")
		} else {
			h.Set("X-API-Key", "key")
		}
		a, err := NewAgent(flavor, srv.URL+"/", h, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		r := New(0, a)
		ctx := context.Background()
		_, errS := r.Schema(ctx, personSchema)
		_, errD := r.CredentialDefinition(ctx, personDef)
		_, errU := r.Schema(ctx, "unknown")
		srv.Close()
		if errS != nil || errD != nil || !errors.Is(errU, anoncreds.ErrUnknown) {
			t.Fatalf("%s: %v / %v / %v (paths %v)", flavor, errS, errD, errU, paths)
		}
		want := map[string][]string{
			FlavorCredo: {"/anoncreds/schemas/" + personSchema, "/anoncreds/credential-definitions/" + personDef, "/credential-definitions/" + personDef, "/anoncreds/schemas/unknown", "/schemas/unknown"},
			FlavorACAPy: {"/schemas/" + personSchema, "/anoncreds/schema/" + personSchema, "/credential-definitions/" + personDef, "/schemas/unknown"},
		}[flavor]
		if strings.Join(paths, " ") != strings.Join(want, " ") {
			t.Errorf("%s asked %v, want %v", flavor, paths, want)
		}
	}
	if _, err := NewAgent("other", "http://x", nil, nil); err == nil {
		t.Error("unknown agent type taken")
	}
}

var urlPathUnescape = url.PathUnescape
