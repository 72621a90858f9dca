package integration

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

const (
	unauthorized = `{"statusCode":401,"error":"Unauthorized"}`
	forbidden    = `{"statusCode":403,"error":"Forbidden"}`
)

func TestAuthenticationAndAuthorization(t *testing.T) {
	startCaddy(t, "")
	path := oobPath(orgA, "indy")
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
		body    string
	}{
		{"no credential", []string{"Content-Type: application/json"}, 401, unauthorized},
		{"wrong bearer key", []string{"Content-Type: application/json", "Authorization: Bearer not-a-key-of-ours-at-all"}, 401, unauthorized},
		{"wrong X-API-Key", []string{"Content-Type: application/json", "X-API-Key: not-a-key-of-ours-at-all"}, 401, unauthorized},
		{"basic scheme", []string{"Content-Type: application/json", "Authorization: Basic " + keyA}, 401, unauthorized},
		{"other org's key", []string{"Content-Type: application/json", "Authorization: Bearer " + keyB}, 403, forbidden},
		{"own key as X-API-Key", []string{"Content-Type: application/json", "X-API-Key: " + keyA}, 201, ""},
		{"lower-case bearer", []string{"Content-Type: application/json", "authorization: bearer " + keyA}, 201, ""},
		{"wildcard key", []string{"Content-Type: application/json", "Authorization: Bearer " + keyAll}, 201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, http.MethodPost, path, indyBody, tc.headers...)
			wantBody(t, r, tc.status, tc.body)
			if tc.status == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}
}

func TestErrorStatuses(t *testing.T) {
	startCaddy(t, "")
	created := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	recordID := created.json(t)["data"].(map[string]any)["proofRecordId"].(string)

	t.Run("405 with Allow", func(t *testing.T) {
		for _, p := range []string{oobPath(orgA, "indy"), acceptPath(recordID)} {
			r := do(t, http.MethodGet, p, "", "Authorization: Bearer "+keyA)
			wantBody(t, r, 405, `{"statusCode":405,"error":"Method Not Allowed","message":"use POST"}`)
			if r.header.Get("Allow") != "POST" {
				t.Fatalf("Allow %q", r.header.Get("Allow"))
			}
		}
	})
	t.Run("415", func(t *testing.T) {
		r := do(t, http.MethodPost, oobPath(orgA, "indy"), indyBody, "Content-Type: text/plain", "Authorization: Bearer "+keyA)
		wantBody(t, r, 415, `{"statusCode":415,"error":"Unsupported Media Type","message":"Content-Type must be application/json"}`)
	})
	t.Run("400 org id", func(t *testing.T) {
		wantBody(t, postJSON(t, "/orgs/a%20b/proofs/oob?requestType=indy", keyAll, indyBody), 400,
			`{"statusCode":400,"error":"Bad Request","message":["orgId: must be printable ASCII without spaces"]}`)
	})
	t.Run("404 unknown record", func(t *testing.T) {
		id := "9b2c6f0e-1d3a-4c5b-8e7f-0a1b2c3d4e5f"
		wantBody(t, postJSON(t, acceptPath(id), keyA, ""), 404,
			`{"statusCode":404,"error":"Not Found","message":"proof record `+id+` not found"}`)
	})
	t.Run("400 record id not a UUID", func(t *testing.T) {
		r := postJSON(t, acceptPath("not-a-uuid"), keyA, "")
		wantBody(t, r, 400, "")
		if !strings.Contains(string(r.body), "proofRecordId") {
			t.Fatalf("message does not name the field: %s", r.body)
		}
	})
	t.Run("403 other org's record", func(t *testing.T) {
		wantBody(t, postJSON(t, acceptPath(recordID), keyB, ""), 403, forbidden)
	})
	t.Run("401 accept without credential", func(t *testing.T) {
		wantBody(t, do(t, http.MethodPost, acceptPath(recordID), ""), 401, unauthorized)
	})
	t.Run("409 request-sent", func(t *testing.T) {
		wantBody(t, postJSON(t, acceptPath(recordID), keyA, `{"ignored":true}`), 409,
			`{"statusCode":409,"error":"Conflict","message":"proof record is in state \"request-sent\"; a presentation can be accepted only in state \"presentation-received\""}`)
	})
}

func TestPassThrough(t *testing.T) {
	startCaddy(t, "")
	for _, p := range []string{"/", "/orgs/x/proofs", "/orgs/x/proofs/oob/extra", "/orgs//proofs/oob", "/proofs/x/y", "/proofs/", "/proofs/x/accept-presentation/y", "/url/", "/didcomm/x"} {
		wantBody(t, do(t, http.MethodGet, p, ""), 200, "passed through")
	}
}

// TestValidationOverHTTP checks that each kind of problem reaches the client
// as a 400 naming the field (every rule is covered in internal/validate).
func TestValidationOverHTTP(t *testing.T) {
	startCaddy(t, "")
	indy := func(repl ...string) string { return strings.NewReplacer(repl...).Replace(indyBody) }
	for _, tc := range []struct {
		name, requestType, body, want string
	}{
		{"requestType missing", "", indyBody, "requestType"},
		{"requestType unknown", "jwt", indyBody, "requestType"},
		{"not JSON", "indy", `{"isShortenUrl":`, "body"},
		{"trailing data", "indy", indyBody + `{}`, "body"},
		{"duplicate key", "indy", `{"isShortenUrl":false,"isShortenUrl":true,"proofFormats":{}}`, "isShortenUrl"},
		{"unknown field", "indy", indy(`"comment"`, `"colour":"red","comment"`), "colour"},
		{"isShortenUrl missing", "indy", indy(`"isShortenUrl":false,`, ``), "isShortenUrl"},
		{"isShortenUrl not boolean", "indy", indy(`"isShortenUrl":false`, `"isShortenUrl":"false"`), "isShortenUrl"},
		{"reuseConnection not boolean", "indy", indy(`"isShortenUrl":false`, `"isShortenUrl":false,"reuseConnection":1`), "reuseConnection"},
		{"protocolVersion unknown", "indy", indy(`"isShortenUrl":false`, `"isShortenUrl":false,"protocolVersion":"v3"`), "protocolVersion"},
		{"v1 with PE", "presentationExchange", strings.Replace(peBody, `"isShortenUrl":true`, `"isShortenUrl":true,"protocolVersion":"v1"`, 1), "protocolVersion"},
		{"proofFormats missing", "indy", `{"isShortenUrl":false}`, "proofFormats"},
		{"indy name empty", "indy", indy(`"name":"age check"`, `"name":""`), "proofFormats.indy.name"},
		{"indy version", "indy", indy(`"version":"1.0"`, `"version":"one"`), "proofFormats.indy.version"},
		{"name and names", "indy", indy(`{"name":"name",`, `{"name":"name","names":["a"],`), "proofFormats.indy.requested_attributes.attr1"},
		{"p_type", "indy", indy(`">="`, `"=="`), "proofFormats.indy.requested_predicates.pred1.p_type"},
		{"p_value", "indy", indy(`"p_value":18`, `"p_value":1.5`), "proofFormats.indy.requested_predicates.pred1.p_value"},
		{"restriction key", "indy", indy(`"schema_id":`, `"colour":`), "proofFormats.indy.requested_attributes.attr1.restrictions[0]"},
		{"schema_id", "indy", indy(`NcYxiDXkpYi6ov5FcYDi1e:2:gvt:1.0`, `not a schema`), "proofFormats.indy.requested_attributes.attr1.restrictions[0].schema_id"},
		{"definition with indy", "indy", indy(`"comment"`, `"presentationDefinition":{"input_descriptors":[{"id":"a","schema":[{"uri":"u"}]}]},"comment"`), "presentationDefinition"},
		{"definition missing", "presentationExchange", `{"isShortenUrl":false,"proofFormats":{}}`, "presentationDefinition"},
		{"descriptor ids", "presentationExchange", `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":{"input_descriptors":[{"id":"a","schema":[{"uri":"u"}]},{"id":"a","schema":[{"uri":"u"}]}]}}`, "presentationDefinition.input_descriptors[1].id"},
		{"bad JSONPath", "presentationExchange", strings.Replace(peBody, `$.credentialSubject.license`, `$[`, 1), "presentationDefinition.input_descriptors[0].constraints.fields[0].path"},
		{"email", "indy", indy(`"comment"`, `"emailId":["Bob <bob@example.com>"],"comment"`), "emailId"},
		{"autoAcceptProof", "indy", indy(`"comment"`, `"autoAcceptProof":"sometimes","comment"`), "autoAcceptProof"},
		{"goalCode type", "indy", indy(`"comment"`, `"goalCode":7,"comment"`), "goalCode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := postJSON(t, oobPath(orgA, tc.requestType), keyA, tc.body)
			if r.status != 400 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			m := r.json(t)
			msgs, _ := m["message"].([]any)
			if m["statusCode"] != float64(400) || m["error"] != "Bad Request" || len(msgs) == 0 {
				t.Fatalf("body %s", r.body)
			}
			found := false
			for _, s := range msgs {
				if strings.HasPrefix(s.(string), tc.want) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no message names %q: %s", tc.want, r.body)
			}
		})
	}
}

func TestSeveralProblemsAtOnce(t *testing.T) {
	startCaddy(t, "")
	r := postJSON(t, oobPath(orgA, "indy"), keyA, `{"isShortenUrl":"no","protocolVersion":"v9","proofFormats":{"indy":{"name":"","version":"x","requested_attributes":{}}}}`)
	if r.status != 400 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if msgs := r.json(t)["message"].([]any); len(msgs) < 4 {
		t.Fatalf("want every problem, got %v", msgs)
	}
}

// TestBodyTooLarge uses a small cap: the server answers before reading a
// body over it, and with a cap below what Go's server drains (256 KiB) the
// client is never reset while still sending.
func TestBodyTooLarge(t *testing.T) {
	startCaddy(t, "max_body_size 1KiB")
	big := `{"isShortenUrl":false,"comment":"` + strings.Repeat("x", 4096) + `"}`
	want := `{"statusCode":413,"error":"Request Entity Too Large","message":"the body must not exceed 1024 bytes"}`
	t.Run("declared length", func(t *testing.T) {
		wantBody(t, postJSON(t, oobPath(orgA, "indy"), keyA, big), 413, want)
	})
	t.Run("chunked", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, base+oobPath(orgA, "indy"), io.MultiReader(strings.NewReader(big)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+keyA)
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if req.ContentLength != 0 || resp.StatusCode != 413 || string(b) != want {
			t.Fatalf("length %d: %d %s", req.ContentLength, resp.StatusCode, b)
		}
	})
	t.Run("just under the cap", func(t *testing.T) {
		r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}
