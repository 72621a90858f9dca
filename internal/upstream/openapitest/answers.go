package openapitest

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// RecordAnswer is the JSON of the record whose idKey member is id among
// records (a fake agent's, as its Records returns them), changed by edit
// (nil: as it is): an answer about that record, for a test to inject as
// the agent's answer about another.
func RecordAnswer(t testing.TB, records []map[string]any, idKey, id string, edit func(map[string]any)) string {
	t.Helper()
	for _, r := range records {
		if r[idKey] == id {
			if edit != nil {
				edit(r)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("the agent holds no record %s", id)
	return ""
}

// RequireBadAnswer fails t unless err is the error of an agent's answer
// proofgate could not use (a 502).
func RequireBadAnswer(t testing.TB, what string, err error) {
	t.Helper()
	var ue *backend.UpstreamError
	if !errors.As(err, &ue) || ue.Status != http.StatusOK {
		t.Fatalf("%s: %v; want the bad agent answer error", what, err)
	}
}
