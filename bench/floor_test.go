package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The floor's answer, as a client receives it: net/http adds the
// Content-Length the floor leaves out, as it does for proofgate's.
func TestFloorHandlerAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := (floorHandler{}).ServeHTTP(w, r, nil); err != nil {
			t.Errorf("body of %d bytes: %v", r.ContentLength, err)
		}
	}))
	defer srv.Close()
	for _, body := range []string{badRequest, "", strings.Repeat("x", 4096)} {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || string(got) != floorAnswer {
			t.Fatalf("body of %d bytes: %d %q", len(body), resp.StatusCode, got)
		}
		h := resp.Header
		if resp.ContentLength != int64(len(floorAnswer)) || h.Get("Content-Type") != "application/json; charset=utf-8" ||
			h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("Content-Length %d, headers %v", resp.ContentLength, h)
		}
	}
}

func TestSameAnswer(t *testing.T) {
	serve := func(extra string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if extra != "" {
				w.Header().Set("X-Extra", extra)
			}
			_ = (floorHandler{}).ServeHTTP(w, r, nil)
		}))
	}
	a, b, c := serve(""), serve(""), serve("1")
	defer a.Close()
	defer b.Close()
	defer c.Close()
	tgt := func(name, url string) target {
		return target{Name: name, Method: http.MethodPost, URL: url, Body: badRequest, Header: map[string]string{"Content-Type": "application/json"}}
	}
	if err := sameAnswer(http.DefaultClient, tgt("a", a.URL), tgt("b", b.URL)); err != nil {
		t.Fatalf("equal answers: %v", err)
	}
	if err := sameAnswer(http.DefaultClient, tgt("a", a.URL), tgt("c", c.URL)); err == nil {
		t.Fatal("an extra header went unnoticed")
	}
}
