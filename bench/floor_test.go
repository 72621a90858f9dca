package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestFloorHandlerAnswer(t *testing.T) {
	for _, body := range []string{badRequest, "", strings.Repeat("x", 4096)} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		rec := httptest.NewRecorder()
		if err := (floorHandler{}).ServeHTTP(rec, req, nil); err != nil {
			t.Fatalf("body of %d bytes: %v", len(body), err)
		}
		if rec.Code != http.StatusBadRequest || rec.Body.String() != floorAnswer {
			t.Fatalf("body of %d bytes: %d %q", len(body), rec.Code, rec.Body)
		}
		h := rec.Header()
		if h.Get("Content-Length") != strconv.Itoa(len(floorAnswer)) || h.Get("Content-Type") != "application/json; charset=utf-8" ||
			h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("headers %v", h)
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
