package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// awkward strings for the JSON encoders: quotes, backslashes, every kind of
// control character, HTML characters (not escaped), invalid UTF-8, U+2028,
// U+2029 and other non-ASCII.
var awkward = []string{
	"", "plain", `q"uote`, `back\slash`, "\b\f\n\r\t", "\x00\x01\x1f\x7f", "<script>&amp;</script>",
	"bad \xff byte", "cut \xe2\x80", "line\u2028para\u2029", "ünïcödé ✓ 😀", `p_type: must be one of ">=", ">", "<=", "<"`,
}

// TestAppendErrorBody: the hand-made error bodies are byte for byte what
// encoding/json makes of the same errorBody, for every message shape
// handlers send and every status.
func TestAppendErrorBody(t *testing.T) {
	messages := []any{nil, []string(nil), []string{}, []string{"one"}, awkward}
	for _, s := range awkward {
		messages = append(messages, s, []string{s, s})
	}
	for _, status := range []int{400, 404, 405, 408, 409, 413, 415, 500, 502, 503, 504, 599} {
		for _, m := range messages {
			got, ok := appendErrorBody(nil, status, m)
			if !ok {
				t.Fatalf("message %#v not handled", m)
			}
			if want := encodingJSON(t, errorBody{StatusCode: status, Error: http.StatusText(status), Message: m}); string(got) != want {
				t.Errorf("%d %#v:\n got  %s\n want %s", status, m, got, want)
			}
		}
	}
	if _, ok := appendErrorBody(nil, 400, 42); ok {
		t.Error("a message of another type is handled")
	}
	// writeError answers with the same bytes and headers either way.
	for _, m := range []any{[]string{"a: b"}, "text", nil, map[string]int{"x": 1}} {
		w := httptest.NewRecorder()
		writeError(w, 400, m)
		want := httptest.NewRecorder()
		writeJSON(want, 400, errorBody{StatusCode: 400, Error: "Bad Request", Message: m})
		if w.Body.String() != want.Body.String() || w.Header().Get("Content-Length") != want.Header().Get("Content-Length") {
			t.Errorf("writeError(%#v) = %s, want %s", m, w.Body, want.Body)
		}
	}
}

func encodingJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// FuzzAppendJSONString holds appendJSONString to encoding/json.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), encodingJSON(t, s); got != want {
			t.Fatalf("appendJSONString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// The header values share one array, but each is its own slice: adding to
// one leaves the others as they were.
func TestWriteBodyHeadersIndependent(t *testing.T) {
	w := httptest.NewRecorder()
	large := bytes.Repeat([]byte(" "), implicitLengthMax+1)
	writeBody(w, 400, large)
	h := w.Header()
	h.Add("Content-Type", "x")
	h.Add("Content-Length", "y")
	if got := h.Values("Content-Length"); len(got) != 2 || got[0] != fmt.Sprint(len(large)) || got[1] != "y" {
		t.Fatalf("Content-Length %q", got)
	}
	if got := h.Values("Cache-Control"); len(got) != 1 || got[0] != "no-store" {
		t.Fatalf("Cache-Control %q", got)
	}
	if got := h.Values("Content-Type"); len(got) != 2 || got[0] != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q", got)
	}
}

// Every JSON answer arrives with its Content-Length and unchunked: set by
// the handler when larger than net/http buffers, by net/http otherwise.
func TestAnswersCarryContentLength(t *testing.T) {
	for _, n := range []int{0, 2, implicitLengthMax - 1, implicitLengthMax, implicitLengthMax + 1, 3 * implicitLengthMax} {
		body := bytes.Repeat([]byte("a"), n)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/challenge" {
				writeBodyChallenge(w, http.StatusUnauthorized, body, "Bearer")
				return
			}
			writeBody(w, http.StatusBadRequest, body)
		}))
		for _, path := range []string{"/", "/challenge"} {
			resp, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.ContentLength != int64(n) || len(resp.TransferEncoding) != 0 || len(got) != n {
				t.Errorf("%d bytes at %s: Content-Length %d, Transfer-Encoding %q, %d bytes read", n, path, resp.ContentLength, resp.TransferEncoding, len(got))
			}
		}
		srv.Close()
	}
}

var queries = []string{
	"", "requestType=indy", "requestType=indy&requestType=presentationExchange", "a=1&requestType=x&b=2",
	"requestType=", "requestType", "requestType=a=b", "requestType=in%64y", "request%54ype=indy", "requestType=a+b",
	"requestType=%zz", "request%zzType=indy&requestType=ok", "requestType=a;b", "a=1;requestType=indy",
	"requestType=one&requestType=%zz", "&&requestType=x&&", "requesttype=indy", "requestType=indy#frag",
	"requestType+=indy", "%72equestType=1&requestType=2", strings.Repeat("a&", 150) + "requestType=many",
	strings.Repeat("requestType=x&", 120),
}

// TestQueryParam: queryParam reads what url.ParseQuery reads.
func TestQueryParam(t *testing.T) {
	for _, q := range queries {
		checkQueryParam(t, q)
	}
}

func checkQueryParam(t *testing.T, q string) {
	t.Helper()
	vals, _ := url.ParseQuery(q)
	want := vals["requestType"]
	first, n := queryParam(q, "requestType")
	if n != len(want) || (n > 0 && first != want[0]) || (n == 0 && first != "") {
		t.Errorf("queryParam(%q) = %q, %d; url.ParseQuery: %q", q, first, n, want)
	}
}

func FuzzQueryParam(f *testing.F) {
	for _, q := range queries {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) { checkQueryParam(t, q) })
}

// Answers written from reused buffers stay what they were when written.
func TestPooledBodiesIndependent(t *testing.T) {
	first := httptest.NewRecorder()
	writeError(first, 400, []string{"a: " + strings.Repeat("x", 300)})
	want := first.Body.String()
	for range 3 {
		writeProblems(httptest.NewRecorder(), 400, []string{"b: y"})
		writeCreatedOne(httptest.NewRecorder(), oobData{ProofRecordID: strings.Repeat("z", 500)})
	}
	if first.Body.String() != want {
		t.Fatalf("an earlier answer changed:\n%s\nwas\n%s", first.Body, want)
	}
	again := httptest.NewRecorder()
	writeError(again, 400, []string{"a: " + strings.Repeat("x", 300)})
	if again.Body.String() != want || again.Header().Get("Content-Length") != first.Header().Get("Content-Length") {
		t.Fatalf("from a reused buffer: %s", again.Body)
	}
}
