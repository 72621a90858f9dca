package anoncreds

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir holds the corpus scripts/anoncreds-gen/gen.py made with the
// reference library (anoncreds on PyPI).
var corpusDir = filepath.Join("..", "..", "testdata", "anoncreds")

type corpusCase struct {
	Name         string          `json:"name"`
	About        string          `json:"about"`
	Request      json.RawMessage `json:"request"`
	Presentation json.RawMessage `json:"presentation"`
	Reference    struct {
		Verified bool   `json:"verified"`
		Error    string `json:"error"`
	} `json:"reference"`
	Ours *struct {
		Verified   bool   `json:"verified"`
		Revocation string `json:"revocation"`
		Why        string `json:"why"`
	} `json:"ours"`
}

type corpus struct {
	Anoncreds string       `json:"anoncreds"`
	Cases     []corpusCase `json:"cases"`
}

func loadCorpus(t testing.TB) corpus { return loadCorpusFrom(t, corpusDir) }

func loadCorpusFrom(t testing.TB, dir string) corpus {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c corpus
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// mapResolver serves the corpus registry files.
type mapResolver struct {
	schemas map[string]*Schema
	defs    map[string]*CredentialDefinition
	// unusable holds, by id, why a credential definition's document was
	// refused (ParseCredentialDefinition's error), answered as a registry
	// answers it.
	unusable map[string]error
}

func (m *mapResolver) Schema(_ context.Context, id string) (*Schema, error) {
	if s, ok := m.schemas[id]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("schema %s: %w", id, ErrUnknown)
}

func (m *mapResolver) CredentialDefinition(_ context.Context, id string) (*CredentialDefinition, error) {
	if err, ok := m.unusable[id]; ok {
		return nil, err
	}
	if d, ok := m.defs[id]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("credential definition %s: %w", id, ErrUnknown)
}

func loadRegistry(t testing.TB) *mapResolver { return loadRegistryFrom(t, corpusDir) }

func loadRegistryFrom(t testing.TB, dir string) *mapResolver {
	t.Helper()
	read := func(name string) map[string]json.RawMessage {
		data, err := os.ReadFile(filepath.Join(dir, "registry", name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := &mapResolver{schemas: map[string]*Schema{}, defs: map[string]*CredentialDefinition{}}
	for id, raw := range read("schemas.json") {
		s, err := ParseSchema(id, raw)
		if err != nil {
			t.Fatal(err)
		}
		r.schemas[id] = s
	}
	for id, raw := range read("cred_defs.json") {
		d, err := ParseCredentialDefinition(id, raw)
		if err != nil {
			t.Fatal(err)
		}
		r.defs[id] = d
	}
	return r
}

// TestCorpus checks our verdict on every case of the reference corpus:
// the reference's own verdict, except where the case records a deliberate
// departure (ours, with the rule that decides it).
//
// scripts/test.sh, where Python and the anoncreds package are available,
// also makes a fresh corpus (new keys, new proofs) and points
// PROOFGATE_ANONCREDS_CORPUS at it, and a differential one of mutated
// presentations (scripts/anoncreds-gen/mutate.py) at
// PROOFGATE_ANONCREDS_MUTATED; both are checked the same way.
func TestCorpus(t *testing.T) {
	t.Run("committed", func(t *testing.T) { checkCorpus(t, corpusDir) })
	if dir := os.Getenv("PROOFGATE_ANONCREDS_CORPUS"); dir != "" {
		t.Run("fresh", func(t *testing.T) { checkCorpus(t, dir) })
	}
	if dir := os.Getenv("PROOFGATE_ANONCREDS_MUTATED"); dir != "" {
		t.Run("mutated", func(t *testing.T) { checkCorpus(t, dir) })
	}
}

func checkCorpus(t *testing.T, dir string) {
	c := loadCorpusFrom(t, dir)
	if !strings.HasPrefix(c.Anoncreds, "0.2.3") {
		t.Fatalf("corpus made with anoncreds %q, want 0.2.3", c.Anoncreds)
	}
	if len(c.Cases) < 60 {
		t.Fatalf("%d cases, want at least 60", len(c.Cases))
	}
	v := &Verifier{Resolver: loadRegistryFrom(t, dir)}
	departures := 0
	for _, tc := range c.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			got := v.Verify(context.Background(), tc.Request, tc.Presentation)
			want := tc.Reference.Verified
			if tc.Ours != nil {
				departures++
				want = tc.Ours.Verified
				if tc.Ours.Revocation != "" && got.Revocation != tc.Ours.Revocation {
					t.Errorf("revocation %q, want %q", got.Revocation, tc.Ours.Revocation)
				}
			}
			if got.Verified != want {
				t.Errorf("%s: verified=%v (problems %q), want %v (reference %v %s)", tc.About, got.Verified, got.Problems, want, tc.Reference.Verified, tc.Reference.Error)
			}
			if !got.Verified && len(got.Problems) == 0 {
				t.Errorf("refused without a reason")
			}
		})
	}
	t.Logf("%d cases, %d departures from the reference", len(c.Cases), departures)
}
