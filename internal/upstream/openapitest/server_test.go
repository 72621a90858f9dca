package openapitest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that keeps the errors a Server reports instead
// of failing, so that the server's own checks can be tested.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func post(t *testing.T, url, auth, extra, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if extra != "" {
		req.Header.Set("X-API-Key", extra)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestViolationsFailTheTest checks that the fake agents report what breaks
// the documents, and only that.
func TestViolationsFailTheTest(t *testing.T) {
	bearer := "Bearer " + CredoDedicatedToken
	tests := []struct {
		name      string
		legacy    bool
		path      string
		auth      string
		body      string
		violation string // "" = conforming
	}{
		{"conforming create", false, "/didcomm/proofs/create-request-oob", bearer, `{"protocolVersion":"v2","proofFormats":{"indy":{}}}`, ""},
		{"unknown member", false, "/didcomm/proofs/create-request-oob", bearer, `{"protocolVersion":"v2","proofFormats":{},"isShortenUrl":true}`, "isShortenUrl"},
		{"missing required member", false, "/didcomm/proofs/create-request-oob", bearer, `{"proofFormats":{}}`, "protocolVersion"},
		{"wrong type", false, "/didcomm/proofs/create-request-oob", bearer, `{"protocolVersion":2,"proofFormats":{}}`, "protocolVersion"},
		{"bad enum", false, "/didcomm/proofs/create-request-oob", bearer, `{"protocolVersion":"v2","proofFormats":{},"autoAcceptProof":"sometimes"}`, "autoAcceptProof"},
		{"no credential", false, "/didcomm/proofs/create-request-oob", "", `{"protocolVersion":"v2","proofFormats":{}}`, "security"},
		{"raw token where bearer is due", false, "/didcomm/proofs/create-request-oob", CredoDedicatedToken, `{"protocolVersion":"v2","proofFormats":{}}`, "Bearer"},
		{"undocumented route", false, "/proofs/create-request-oob", bearer, `{"protocolVersion":"v2","proofFormats":{}}`, "no such operation"},
		{"legacy route, rewritten", true, "/proofs/create-request-oob", CredoDedicatedToken, `{"protocolVersion":"v2","proofFormats":{}}`, ""},
		{"legacy route, unknown member", true, "/proofs/create-request-oob", CredoDedicatedToken, `{"protocolVersion":"v2","proofFormats":{},"x":1}`, "\"x\""},
		{"legacy route with bearer", true, "/proofs/create-request-oob", bearer, `{"protocolVersion":"v2","proofFormats":{}}`, "raw token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			fake := NewCredo(rec, CredoOptions{Legacy: tt.legacy})
			status := post(t, fake.URL+tt.path, tt.auth, "", tt.body)
			errs := rec.errors()
			if tt.violation == "" {
				if len(errs) != 0 || status != http.StatusOK {
					t.Fatalf("conforming request: status %d, reported %v", status, errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0], tt.violation) || status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, reported %q; want one report naming %q", status, errs, tt.violation)
			}
		})
	}
}

func TestACAPyViolations(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		body      string
		violation string
	}{
		{"conforming indy", "/present-proof-2.0/create-request",
			`{"presentation_request":{"indy":{"name":"x","version":"1.0","requested_attributes":{},"requested_predicates":{}}}}`, ""},
		{"dif id not UUID4", "/present-proof-2.0/create-request",
			`{"presentation_request":{"dif":{"presentation_definition":{"id":"first simple example","input_descriptors":[]}}}}`, "id"},
		{"dif schema as a list", "/present-proof-2.0/create-request",
			`{"presentation_request":{"dif":{"presentation_definition":{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","input_descriptors":[{"id":"a","schema":[{"uri":"u"}]}]}}}}`, "schema"},
		{"no presentation_request", "/present-proof-2.0/create-request", `{"comment":"x"}`, "presentation_request"},
		{"bad attachment type", "/out-of-band/create-invitation", `{"attachments":[{"id":"x","type":"proof"}]}`, "type"},
		{"record id not UUID4", "/present-proof-2.0/records/123/verify-presentation", ``, "pres_ex_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			fake := NewACAPy(rec, ACAPyOptions{})
			status := post(t, fake.URL+tt.path, "", "", tt.body)
			errs := rec.errors()
			if tt.violation == "" {
				if len(errs) != 0 || status != http.StatusOK {
					t.Fatalf("conforming request: status %d, reported %v", status, errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0], tt.violation) {
				t.Fatalf("status %d, reported %q; want one report naming %q", status, errs, tt.violation)
			}
		})
	}
}

// TestAnswersAreChecked: a fake agent answer that breaks the document is
// reported too.
func TestAnswersAreChecked(t *testing.T) {
	rec := &recorder{TB: t}
	srv := NewServer(rec, Options{Doc: CredoDoc, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"invitationUrl": "x"}) // lacks required members
	})})
	post(t, srv.URL+"/didcomm/proofs/create-request-oob", "Bearer x", "", `{"protocolVersion":"v2","proofFormats":{}}`)
	if errs := rec.errors(); len(errs) != 1 || !strings.Contains(errs[0], "answer") {
		t.Fatalf("reported %q", errs)
	}
}
