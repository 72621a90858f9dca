package jsonld

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piprate/json-gold/ld"
)

func expand(t *testing.T, l *Loader, doc string) ([]any, error) {
	t.Helper()
	var in any
	if err := json.Unmarshal([]byte(doc), &in); err != nil {
		t.Fatal(err)
	}
	opts := ld.NewJsonLdOptions("")
	opts.DocumentLoader = l
	return ld.NewJsonLdProcessor().Expand(in, opts)
}

func TestPinnedContextsResolve(t *testing.T) {
	l, err := NewLoader("")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range Pinned() {
		t.Run(u, func(t *testing.T) {
			// A document that uses the context must expand: the context
			// is valid JSON-LD 1.1 for json-gold, not just present.
			doc := `{"@context": ["` + u + `", {"@vocab": "https://example.org/vocab#"}], "@id": "urn:x", "name": "x"}`
			if u == "https://www.w3.org/2018/credentials/v1" || u == "https://www.w3.org/ns/credentials/v2" || u == "https://www.w3.org/ns/did/v1" {
				// @protected contexts with their own id/type: no @vocab after them.
				doc = `{"@context": ["` + u + `"], "id": "urn:x"}`
			}
			if _, err := expand(t, l, doc); err != nil {
				t.Fatalf("expanding with %s: %v", u, err)
			}
		})
	}
}

func TestIssueNamedContextsArePinned(t *testing.T) {
	// The set #9 and the ACA-Py interop notes require.
	for _, u := range []string{
		"https://www.w3.org/2018/credentials/v1",
		"https://www.w3.org/ns/credentials/v2",
		"https://w3id.org/security/v1",
		"https://w3id.org/security/v2",
		"https://w3id.org/security/suites/ed25519-2020/v1",
		"https://w3id.org/security/data-integrity/v2",
		"https://www.w3.org/ns/did/v1",
		"https://w3id.org/vc/status-list/2021/v1",
		"https://www.w3.org/ns/credentials/status/v1",
		"https://www.w3.org/ns/credentials/examples/v2",
		"https://identity.foundation/presentation-exchange/submission/v1",
		"https://w3id.org/security/bbs/v1",
	} {
		if _, ok := pinned[u]; !ok {
			t.Errorf("%s is not pinned", u)
		}
	}
}

func TestUnknownContextIsRefusedThroughJSONGold(t *testing.T) {
	l, _ := NewLoader("")
	_, err := expand(t, l, `{"@context": ["https://www.w3.org/2018/credentials/v1", "https://evil.example/ctx"], "id": "urn:x"}`)
	if err == nil {
		t.Fatal("expanded a document with an unknown context")
	}
	u, ok := UnsupportedContext(err)
	if !ok || u != "https://evil.example/ctx" {
		t.Fatalf("UnsupportedContext(%v) = %q, %v", err, u, ok)
	}
	if got := (&UnsupportedContextError{URL: u}).Error(); got != "unsupported context https://evil.example/ctx" {
		t.Fatalf("message %q", got)
	}
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOperatorContexts(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"index.json":     `{"https://ctx.example.com/alumni/v1": "alumni.jsonld"}`,
		"alumni.jsonld":  `{"@context": {"alumniOf": "https://schema.org/alumniOf"}}`,
		"ignored.jsonld": `not json`,
	})
	l, err := NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Has("https://ctx.example.com/alumni/v1") || !l.Has("https://www.w3.org/2018/credentials/v1") {
		t.Fatal("operator or pinned context missing")
	}
	out, err := expand(t, l, `{"@context": ["https://www.w3.org/2018/credentials/v1", "https://ctx.example.com/alumni/v1"], "id": "urn:x", "alumniOf": "Example U"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mustJSON(t, out), "https://schema.org/alumniOf") {
		t.Fatalf("operator term not expanded: %s", mustJSON(t, out))
	}
}

func TestOperatorContextsRefused(t *testing.T) {
	big := `{"@context": {"x": "` + strings.Repeat("a", MaxContextFileSize) + `"}}`
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no index", map[string]string{"a.jsonld": `{"@context": {}}`}, "index.json"},
		{"index not a map", map[string]string{"index.json": `[]`}, "must map context URLs"},
		{"relative URL", map[string]string{"index.json": `{"ctx/v1": "a.jsonld"}`, "a.jsonld": `{"@context": {}}`}, "absolute http(s) URL"},
		{"fragment", map[string]string{"index.json": `{"https://x.example/c#v1": "a.jsonld"}`, "a.jsonld": `{"@context": {}}`}, "fragment"},
		{"replaces pinned", map[string]string{"index.json": `{"https://www.w3.org/2018/credentials/v1": "a.jsonld"}`, "a.jsonld": `{"@context": {}}`}, "pinned"},
		{"escapes dir", map[string]string{"index.json": `{"https://x.example/c": "../outside.jsonld"}`}, "context \"https://x.example/c\""},
		{"missing file", map[string]string{"index.json": `{"https://x.example/c": "nope.jsonld"}`}, "nope.jsonld"},
		{"no @context", map[string]string{"index.json": `{"https://x.example/c": "a.jsonld"}`, "a.jsonld": `{"x": 1}`}, "no @context"},
		{"too big", map[string]string{"index.json": `{"https://x.example/c": "a.jsonld"}`, "a.jsonld": big}, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLoader(writeDir(t, tt.files))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := NewLoader(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Fatal("a missing directory was accepted")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A document whose context imports a pinned one must not change that
// context for the next document: json-gold merges the importing
// context's terms into the map it loaded, so the loader hands out copies.
func TestImportDoesNotRewritePinnedContext(t *testing.T) {
	l, err := NewLoader("")
	if err != nil {
		t.Fatal(err)
	}
	const v1 = "https://www.w3.org/2018/credentials/v1"
	plain := `{"@context": ["` + v1 + `"], "id": "urn:x", "type": "VerifiableCredential", "issuer": "did:example:issuer"}`
	before, err := expand(t, l, plain)
	if err != nil {
		t.Fatal(err)
	}
	// The import redefines an unprotected name and brings its own term.
	importing := `{"@context": [{"@version": 1.1, "@import": "` + v1 + `", "evil": "https://evil.example/#x"}], "@id": "urn:y", "evil": "z"}`
	for range 2 {
		_, _ = expand(t, l, importing)
	}
	after, err := expand(t, l, plain)
	if err != nil {
		t.Fatalf("the pinned context was rewritten by an import: %v", err)
	}
	if mustJSON(t, before) != mustJSON(t, after) {
		t.Fatalf("the pinned context means something else after an import:\n%s\n%s", mustJSON(t, before), mustJSON(t, after))
	}
	// The pinned document itself is unchanged.
	doc, _ := l.LoadDocument(v1)
	if ctx, _ := doc.Document.(map[string]any)["@context"].(map[string]any); ctx["evil"] != nil || ctx["@import"] != nil {
		t.Fatalf("the pinned context holds the importer's terms: %v %v", ctx["evil"], ctx["@import"])
	}
}
