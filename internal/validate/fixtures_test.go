package validate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixturesDir is the DIF material copied into the repository (see
// testdata/README.md for its source and licence).
const fixturesDir = "../../testdata/presentation-exchange"

// TestFixtures runs every DIF v2 example as presentationDefinition, each
// in its own spelling: the definition of the {"presentation_definition"}
// wrapper as is, and the VC_* input descriptors wrapped in a definition.
// All are accepted except format_example.json, which asks for no input
// descriptor.
func TestFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixturesDir, "v2", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 11 {
		t.Fatalf("found %d fixtures in %s, want the 11 DIF v2 examples", len(files), fixturesDir)
	}
	rejected := map[string][]string{
		"format_example.json": {"presentationDefinition.input_descriptors: a proof request must ask for at least one input descriptor"},
	}
	v := newValidator(t, Options{})
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var pd json.RawMessage
			if strings.HasPrefix(name, "VC_") {
				pd = json.RawMessage(`{"input_descriptors":[` + string(b) + `]}`)
			} else {
				var wrapper struct {
					PresentationDefinition json.RawMessage `json:"presentation_definition"`
				}
				if err := json.Unmarshal(b, &wrapper); err != nil || wrapper.PresentationDefinition == nil {
					t.Fatalf("%s: no presentation_definition (%v)", name, err)
				}
				pd = wrapper.PresentationDefinition
			}
			body := `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":` + string(pd) + `}`
			req, err := v.OOB("presentationExchange", []byte(body))
			sameProblems(t, problems(t, err), rejected[name])
			if err != nil {
				return
			}
			// The normalized definition is the example itself (plus an id
			// for the bare descriptors).
			var got, want map[string]any
			if err := json.Unmarshal(req.PresentationDefinition, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(pd, &want); err != nil {
				t.Fatal(err)
			}
			if _, ok := want["id"]; !ok {
				want["id"] = got["id"]
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("normalized definition changed:\n got  %s\n want %s", gb, wb)
			}
		})
	}
}
