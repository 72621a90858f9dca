package netguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCategory(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()

	tests := []struct {
		name string
		opts Options
		url  string
		want string
	}{
		{"guarded loopback", Options{Timeout: 2 * time.Second}, "http://" + closed, CategoryNotPublic},
		{"refused", Options{AllowPrivate: true, Timeout: 2 * time.Second}, "http://" + closed, CategoryRefused},
		{"timeout", Options{AllowPrivate: true, Timeout: 200 * time.Millisecond}, slow.URL, CategoryTimeout},
		{"untrusted certificate", Options{AllowPrivate: true, Timeout: 2 * time.Second}, tlsSrv.URL, CategoryTLS},
		{"no such host", Options{AllowPrivate: true, Timeout: 2 * time.Second}, "http://nonexistent.invalid", CategoryUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, tt.url, nil)
			_, err := Client(tt.opts).Do(req)
			if err == nil {
				t.Fatal("no error")
			}
			if got := Category(err); got != tt.want {
				t.Fatalf("Category(%v) = %s, want %s", err, got, tt.want)
			}
			if strings.Contains(tt.want, "127.0.0.1") {
				t.Fatal("category shows an address")
			}
		})
	}
}
