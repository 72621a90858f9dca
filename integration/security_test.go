package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestManyProblemsAreCapped: a body built to break every rule gets at most
// 100 messages and a count of the rest, not an answer larger than itself.
func TestManyProblemsAreCapped(t *testing.T) {
	startCaddy(t, "")
	var attrs []string
	for i := range 3000 {
		attrs = append(attrs, fmt.Sprintf(`"a%d":{"name":5}`, i))
	}
	body := `{"isShortenUrl":false,"proofFormats":{"indy":{"requested_attributes":{` + strings.Join(attrs, ",") + `}}}}`
	r := postJSON(t, oobPath(orgA, "indy"), keyA, body)
	wantBody(t, r, http.StatusBadRequest, "")
	var got struct{ Message []string }
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Message) != 101 || !strings.HasPrefix(got.Message[100], "… and ") {
		t.Fatalf("%d messages, last %q", len(got.Message), got.Message[len(got.Message)-1])
	}
	if len(r.body) > len(body) {
		t.Errorf("answer of %d bytes to a body of %d", len(r.body), len(body))
	}
}

// TestAmbiguousRequests: two credentials, or requestType twice, are
// refused rather than resolved by whichever is read first.
func TestAmbiguousRequests(t *testing.T) {
	startCaddy(t, "")
	path := oobPath(orgA, "indy")
	for _, tc := range []struct {
		name    string
		path    string
		headers []string
		status  int
	}{
		{"X-API-Key and another bearer", path, []string{"X-API-Key: " + keyA, "Authorization: Bearer " + keyB}, 401},
		{"X-API-Key and the same bearer", path, []string{"X-API-Key: " + keyA, "Authorization: Bearer " + keyA}, 201},
		{"requestType twice", path + "&requestType=presentationExchange", []string{"Authorization: Bearer " + keyA}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, http.MethodPost, tc.path, indyBody, append([]string{"Content-Type: application/json"}, tc.headers...)...)
			wantBody(t, r, tc.status, "")
		})
	}
	// A header given twice needs Add, not the helper's Set.
	for _, name := range []string{"X-API-Key", "Authorization"} {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(indyBody))
		req.Header.Set("Content-Type", "application/json")
		v := keyA
		if name == "Authorization" {
			v = "Bearer " + keyA
		}
		req.Header.Add(name, v)
		req.Header.Add(name, v)
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s twice: %d, want 401", name, resp.StatusCode)
		}
	}
}

// TestLabelsTheMailLayerCannotCarry: labels that made the mail layer fail
// (a 500) are refused by validation with a 400 naming the field; the
// longest label validation takes goes through the mail layer.
func TestLabelsTheMailLayerCannotCarry(t *testing.T) {
	sink := startSMTP(t)
	startCaddy(t, emailBlock(sink))
	withLabel := func(label string) string {
		b, _ := json.Marshal(label)
		return strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"emailId":["holder@example.org"],"label":`+string(b), 1)
	}
	for name, label := range map[string]string{
		"CRLF":          "Acme\r\nBcc: victim@example.org",
		"201 chars":     strings.Repeat("a", 201),
		"300 bytes":     strings.Repeat("é", 150),
		"NUL":           "Acme\x00",
		"bidi override": "Acme \u202egnp.exe",
	} {
		r := postJSON(t, oobPath(orgA, "indy"), keyA, withLabel(label))
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `"label: `) {
			t.Errorf("%s: %d %s; want 400 naming label", name, r.status, r.body)
		}
	}
	r := postJSON(t, oobPath(orgA, "indy"), keyA, withLabel(strings.Repeat("é", 100)))
	wantBody(t, r, http.StatusCreated, "")
	sink.wait(t, "holder@example.org")
}
