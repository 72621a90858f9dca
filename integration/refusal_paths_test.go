package integration

import (
	"net/http"
	"strings"
	"testing"
)

// TestBackendRefusalsInTheCallersSpelling: problems inside a presentation
// definition use the caller's own spelling (presentationDefinition[0]…,
// …inputDescriptors[0]…), the local backend's create-time refusals (400)
// too.
func TestBackendRefusalsInTheCallersSpelling(t *testing.T) {
	startCaddy(t, "")
	desc := `{"id":"d1","name":"n","purpose":"p","constraints":{"limit_disclosure":"required","fields":[{"path":["$.credentialSubject.x"]}]}}`
	for _, c := range []struct{ def, want string }{
		{`[{"input_descriptors":[` + desc + `]}]`, "presentationDefinition[0].input_descriptors[0].constraints.limit_disclosure"},
		{`{"id":"x","inputDescriptors":[` + desc + `]}`, "presentationDefinition.inputDescriptors[0].constraints.limit_disclosure"},
		{`[{"format":{"jwt_vc":{"alg":["ES384"]}},"input_descriptors":[{"id":"d1","constraints":{"fields":[{"path":["$.x"]}]}}]}]`, "presentationDefinition[0].format.jwt_vc.alg"},
	} {
		body := `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":` + c.def + `}`
		r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `"`+c.want+`:`) {
			t.Errorf("want a 400 naming %s, got %d %s", c.want, r.status, r.body)
		}
	}
}

// TestBackendRefusalsQuoteReferents: a referent with a dot is quoted in
// validation's field paths (requested_attributes["a.b"]), and in the local
// backend's create-time refusals.
func TestBackendRefusalsQuoteReferents(t *testing.T) {
	startCaddy(t, "")
	body := `{"isShortenUrl":false,"proofFormats":{"indy":{"name":"n","version":"1.0","requested_attributes":{"a.b":{"name":"x","restrictions":[{"rev_reg_id":"Th7MpTaRZVRYnPiabds81Y:4:Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag:CL_ACCUM:0"}]}}}}}`
	r := postJSON(t, oobPath(orgA, "indy"), keyA, body)
	want := `proofFormats.indy.requested_attributes[\"a.b\"].restrictions[0].rev_reg_id:`
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), want) {
		t.Errorf("want a 400 naming %s, got %d %s", want, r.status, r.body)
	}
}

// TestBackendRefusalsNameEveryProblem: every problem is reported at once,
// never only the first: two descriptors the local verifier refuses are
// both named.
func TestBackendRefusalsNameEveryProblem(t *testing.T) {
	startCaddy(t, "")
	d := func(id string) string {
		return `{"id":"` + id + `","constraints":{"limit_disclosure":"required","fields":[{"path":["$.credentialSubject.x"]}]}}`
	}
	body := `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":{"input_descriptors":[` + d("a") + `,` + d("b") + `]}}`
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "input_descriptors[0]") || !strings.Contains(string(r.body), "input_descriptors[1]") {
		t.Errorf("want a 400 naming both descriptors, got %d %s", r.status, r.body)
	}
}
