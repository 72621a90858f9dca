package local

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/anoncreds"
)

func TestAnonCredsRegistryJSON(t *testing.T) {
	for name, tc := range map[string]struct {
		cfg      string
		verifier bool
		err      string
	}{
		"no block: structural only": {`{"public_url":"https://v.example"}`, false, ""},
		"files":                     {`{"public_url":"https://v.example","anoncreds_registry":{"sources":[{"type":"files","dir":"` + t.TempDir() + `"}],"cache_ttl":"5m"}}`, true, ""},
		"bad source":                {`{"public_url":"https://v.example","anoncreds_registry":{"sources":[{"type":"ledger"}]}}`, false, "files, agent or http expected"},
		"bad revocation option":     {`{"public_url":"https://v.example","anoncreds_registry":{"revocation_unchecked":"maybe"}}`, false, "accept or refuse"},
	} {
		t.Run(name, func(t *testing.T) {
			var l Local
			if err := json.Unmarshal([]byte(tc.cfg), &l); err != nil {
				t.Fatal(err)
			}
			err := l.Validate()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Validate: %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			set, err := l.verifiers(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{anoncreds.FormatIndyProof, anoncreds.FormatAnonCredsProof} {
				if got := set.For(f) != nil; got != tc.verifier {
					t.Fatalf("verifier for %s: %v, want %v", f, got, tc.verifier)
				}
			}
		})
	}
}
