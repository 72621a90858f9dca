package integration

import (
	"bytes"
	"encoding/json"
	"testing"

	credoenv "github.com/proofgate/proofgate/internal/testenv/credo"
)

// TestCredoVerifierIgnoresConstraints pins what README ("Upstream agents")
// and SECURITY.md say of the credo backend: Credo's verifier (0.5.19) runs
// PEX's evaluation of a DIF presentation and drops its errors, so a
// presentation whose fields fail the definition (a date bound, a number
// bound, a pattern, a const, a path it does not have) is valid once its
// signatures verify, though PEX itself judges every one unmet. Run on the
// Credo install the holder tests use; when it fails, Credo began to
// enforce constraints: say so in README and SECURITY.md, and see what the
// credo backend must refuse of filters then (as the acapy backend does).
func TestCredoVerifierIgnoresConstraints(t *testing.T) {
	out := credoenv.RunScript(t, "pex-verifier.js")
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var c struct {
			Case       string `json:"case"`
			CredoValid bool   `json:"credoValid"`
			PexMet     bool   `json:"pexMet"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		n++
		if c.Case == "control" {
			// A met constraint: the evaluation read here tells met from unmet.
			if !c.PexMet || !c.CredoValid {
				t.Errorf("control: PEX met %v, Credo valid %v; want both", c.PexMet, c.CredoValid)
			}
			continue
		}
		if c.PexMet {
			t.Errorf("%s: PEX judged the unmet constraint met: the case is wrong", c.Case)
		}
		if !c.CredoValid {
			t.Errorf("%s: Credo's verifier now refuses a presentation that fails the definition: update README (Upstream agents) and SECURITY.md", c.Case)
		}
	}
	if n != 6 {
		t.Fatalf("%d cases in:\n%s", n, out)
	}
}
