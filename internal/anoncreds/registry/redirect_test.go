package registry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/anoncreds/registry"
)

// A registry source's answer that redirects is the answer: the request is
// not sent on, so its credentials (an agent's X-API-Key, a source's
// headers: Go forwards those across hosts) reach only the endpoint the
// operator named.
func TestSourcesDoNotFollowRedirects(t *testing.T) {
	elsewhere := make(chan http.Header, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere <- r.Header.Clone()
		http.NotFound(w, r)
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) // another host
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+"/elsewhere", http.StatusFound)
	}))
	defer redirecting.Close()

	secret := http.Header{"X-Api-Key": {"admin-key"}, "X-Registry-Token": {"token"}}
	agent, err := registry.NewAgent("acapy", redirecting.URL, secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := registry.NewHTTP(redirecting.URL+"/{kind}/{id}", secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []registry.Source{agent, tmpl} {
		if doc, err := src.Fetch(context.Background(), registry.KindSchema, "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"); err == nil {
			t.Errorf("%s: a redirect gave a document: %s", src.Name(), doc)
		}
	}
	select {
	case h := <-elsewhere:
		t.Fatalf("a redirect was followed to another host, with %v", h)
	default:
	}
}
