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

// TestV1DateFilterFixtures runs the DIF PE v1 examples that bound dates
// with a string minimum/maximum beside "format": "date" (see
// testdata/README.md): all are accepted as they are.
func TestV1DateFilterFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixturesDir, "v1", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("found %d fixtures in %s/v1, want the 3 DIF v1 date-filter examples", len(files), fixturesDir)
	}
	v := newValidator(t, Options{})
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"format": "date"`) {
				t.Fatalf("%s has no date filter", f)
			}
			var wrapper struct {
				PresentationDefinition json.RawMessage `json:"presentation_definition"`
			}
			if err := json.Unmarshal(b, &wrapper); err != nil || wrapper.PresentationDefinition == nil {
				t.Fatalf("no presentation_definition (%v)", err)
			}
			body := `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":` + string(wrapper.PresentationDefinition) + `}`
			if _, err := v.OOB("presentationExchange", []byte(body)); err != nil {
				t.Fatalf("refused: %v", problems(t, err))
			}
		})
	}
}

// TestDateBoundProblems: a date bound that is no date is refused with the
// field path of the keyword; a string bound without a date format keeps
// JSON Schema's meaning (a number).
func TestDateBoundProblems(t *testing.T) {
	v := newValidator(t, Options{})
	const pre = `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":{"input_descriptors":[{"id":"d","constraints":{"fields":[{"path":["$.dob"],"filter":`
	const post = `}]}}]}}`
	tests := []struct{ filter, want string }{
		{`{"type":"string","format":"date","maximum":"16.05.1999"}`,
			`presentationDefinition.input_descriptors[0].constraints.fields[0].filter.maximum: "16.05.1999" is not a date (YYYY-MM-DD)`},
		{`{"type":"string","format":"date","formatMinimum":"1999-05-16","formatExclusiveMaximum":"2000-13-01"}`,
			`presentationDefinition.input_descriptors[0].constraints.fields[0].filter.formatExclusiveMaximum: "2000-13-01" is not a date (YYYY-MM-DD)`},
	}
	for _, tt := range tests {
		_, err := v.OOB("presentationExchange", []byte(pre+tt.filter+post))
		sameProblems(t, problems(t, err), []string{tt.want})
	}
	if _, err := v.OOB("presentationExchange", []byte(pre+`{"type":"string","minimum":"1999-05-16"}`+post)); err == nil {
		t.Error("a string minimum without a date format was accepted")
	}
	for _, ok := range []string{
		`{"type":"string","format":"date-time","formatMaximum":"2020-04-16T00:00:00Z"}`,
		`{"type":"string","format":"date","exclusiveMinimum":"1999-05-16"}`,
	} {
		if _, err := v.OOB("presentationExchange", []byte(pre+ok+post)); err != nil {
			t.Errorf("%s refused: %v", ok, problems(t, err))
		}
	}
}
