package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/certmagic"
)

func TestCreateFloorStoresAndAnswers(t *testing.T) {
	dir := t.TempDir()
	f := &createFloorHandler{AnswerFile: filepath.Join(dir, "answer.json"), storage: &certmagic.FileStorage{Path: filepath.Join(dir, "data")}}
	serve := func() (*httptest.ResponseRecorder, error) {
		rec := httptest.NewRecorder()
		err := f.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(indyCreate)), nil)
		return rec, err
	}
	// Before the bench writes the answer, the floor answers 503.
	var he caddyhttp.HandlerError
	if _, err := serve(); !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("without an answer file: %v", err)
	}

	want := createFloorAnswer{
		answer: answer{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Content-Length": {"11"}}, Body: []byte(`{"data":{}}`)},
		Record: []byte(`{"id":"a record"}`),
	}
	b, _ := json.Marshal(want)
	if err := os.WriteFile(f.AnswerFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rec, err := serve()
		if err != nil || rec.Code != want.Status || rec.Body.String() != string(want.Body) || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("answer %d %v %q (%v)", rec.Code, rec.Header(), rec.Body, err)
		}
	}
	stored, err := filepath.Glob(filepath.Join(dir, "data", "bench-floor", "records", "*.json"))
	if err != nil || len(stored) != 2 {
		t.Fatalf("want one new record per request, found %v (%v)", stored, err)
	}
	for _, p := range stored {
		if b, _ := os.ReadFile(p); string(b) != string(want.Record) {
			t.Fatalf("%s holds %q", p, b)
		}
	}
}

func TestSameShape(t *testing.T) {
	body := strings.Repeat("x", 1000)
	base := answer{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"1000"}}, Body: []byte(body)}
	for _, c := range []struct {
		name string
		edit func(a *answer)
		ok   bool
	}{
		{"identical", func(*answer) {}, true},
		{"a digit longer", func(a *answer) { a.Body = append(a.Body, '1'); a.Header.Set("Content-Length", "1001") }, true},
		{"another status", func(a *answer) { a.Status = 200 }, false},
		{"an extra header", func(a *answer) { a.Header.Set("Location", "/x") }, false},
		{"another content type", func(a *answer) { a.Header.Set("Content-Type", "text/plain") }, false},
		{"a much shorter body", func(a *answer) { a.Body = a.Body[:900] }, false},
	} {
		b := base
		b.Header = base.Header.Clone()
		b.Body = []byte(body)
		c.edit(&b)
		if err := sameShape(&base, &b); (err == nil) != c.ok {
			t.Errorf("%s: sameShape = %v", c.name, err)
		}
	}
}
