package jsonld

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func newCanon(t *testing.T) *Canonicalizer {
	t.Helper()
	l, err := NewLoader("")
	if err != nil {
		t.Fatal(err)
	}
	return NewCanonicalizer(l, Limits{})
}

// The W3C vc-di-eddsa test vectors (TestVectors/eddsa-rdfc-2022, see
// testdata/w3c/vc-di-eddsa/SOURCES.md): the canonical proof configuration
// and the combined hash of proof configuration and document.
func TestCanonizeVCDIEdDSAVectors(t *testing.T) {
	c := newCanon(t)
	signed := readJSON(t, "../../testdata/w3c/vc-di-eddsa/eddsa-rdfc-2022-signedDataInt.json")
	proof := signed["proof"].(map[string]any)
	delete(signed, "proof")
	delete(proof, "proofValue")
	proof["@context"] = signed["@context"]

	proofCanon, err := c.Canonize(context.Background(), proof, Options{Safe: true})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("../../testdata/w3c/vc-di-eddsa/eddsa-rdfc-2022-proofCanonDataInt.txt")
	if proofCanon != string(want) {
		t.Fatalf("proof configuration canonical form:\n%s\nwant:\n%s", proofCanon, want)
	}
	docCanon, err := c.Canonize(context.Background(), signed, Options{Safe: true})
	if err != nil {
		t.Fatal(err)
	}
	ph, dh := sha256.Sum256([]byte(proofCanon)), sha256.Sum256([]byte(docCanon))
	combined, _ := os.ReadFile("../../testdata/w3c/vc-di-eddsa/eddsa-rdfc-2022-combinedHashDataInt.txt")
	if got := hex.EncodeToString(ph[:]) + hex.EncodeToString(dh[:]); got != strings.TrimSpace(string(combined)) {
		t.Fatalf("combined hash %s, want %s", got, combined)
	}
}

func TestCanonizeSafeModeRefusesUndefinedTerms(t *testing.T) {
	c := newCanon(t)
	doc := map[string]any{
		"@context":          []any{"https://www.w3.org/2018/credentials/v1"},
		"type":              []any{"VerifiableCredential"},
		"issuer":            "did:example:1",
		"issuanceDate":      "2024-01-01T00:00:00Z",
		"credentialSubject": map[string]any{"id": "did:example:2", "undefinedClaim": "x"},
	}
	if _, err := c.Canonize(context.Background(), doc, Options{Safe: true}); err == nil {
		t.Fatal("safe mode dropped an undefined claim silently")
	}
	if _, err := c.Canonize(context.Background(), doc, Options{}); err != nil {
		t.Fatalf("lenient mode: %v", err)
	}
}

func TestCanonizeUnsupportedContext(t *testing.T) {
	c := newCanon(t)
	doc := map[string]any{"@context": []any{"https://www.w3.org/2018/credentials/v1", "https://unknown.example/v1"}, "id": "urn:x"}
	_, err := c.Canonize(context.Background(), doc, Options{})
	if u, ok := UnsupportedContext(err); !ok || u != "https://unknown.example/v1" {
		t.Fatalf("err = %v", err)
	}
}

func nested(depth int) any {
	var v any = "leaf"
	for i := 0; i < depth; i++ {
		v = map[string]any{"https://example.org/p": v}
	}
	return v
}

func TestCanonizeLimits(t *testing.T) {
	l, _ := NewLoader("")
	// Small dataset limits keep the test fast (and the race detector happy);
	// the shape limits are the defaults.
	c := NewCanonicalizer(l, Limits{MaxQuads: 250, MaxBlankNodes: 100})
	// A poison graph: many blank nodes that RDFC-1.0 cannot tell apart.
	twins := []any{}
	for i := 0; i < 12; i++ {
		twins = append(twins, map[string]any{"https://example.org/p": map[string]any{"@id": "https://example.org/same"}})
	}
	manyQuads := map[string]any{"@id": "https://example.org/s"}
	for i := 0; i < 300; i++ {
		manyQuads[fmt.Sprintf("https://example.org/p%d", i)] = "v"
	}
	manyBlank := []any{}
	for i := 0; i < 120; i++ {
		manyBlank = append(manyBlank, map[string]any{"https://example.org/n": fmt.Sprint(i)})
	}
	wide := make([]any, 25000)
	for i := range wide {
		wide[i] = 1
	}
	tests := []struct {
		name string
		doc  any
		want string
	}{
		{"deep", nested(40), "nested deeper"},
		{"wide", map[string]any{"@id": "urn:x", "https://example.org/p": wide}, "JSON values"},
		{"twins", map[string]any{"@id": "urn:x", "https://example.org/has": twins}, "indistinguishable"},
		{"quads", manyQuads, "RDF statements"},
		{"blank nodes", map[string]any{"@id": "urn:x", "https://example.org/has": manyBlank}, "blank nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Canonize(context.Background(), tt.doc, Options{})
			if !errors.Is(err, ErrLimits) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrLimits about %q", err, tt.want)
			}
		})
	}
	// A few distinguishable blank nodes are fine.
	ok := []any{}
	for i := 0; i < 5; i++ {
		ok = append(ok, map[string]any{"https://example.org/n": fmt.Sprint(i)})
	}
	if _, err := c.Canonize(context.Background(), map[string]any{"@id": "urn:x", "https://example.org/has": ok}, Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestCanonizeBusy(t *testing.T) {
	c := newCanon(t)
	// Occupy every worker slot: a run must wait, then give up at its deadline.
	for i := 0; i < cap(workers); i++ {
		workers <- struct{}{}
	}
	defer func() {
		for i := 0; i < cap(workers); i++ {
			<-workers
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*1e6)
	defer cancel()
	if _, err := c.Canonize(ctx, map[string]any{"@id": "urn:x"}, Options{}); !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
}
