package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestPublicAddr(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"93.184.216.34", true},
		{"2606:2800:220:1:248:1893:25c8:1946", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"100.64.0.1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"fd00::1", false},
		{"fe80::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"64:ff9b::a00:1", false},    // NAT64 of 10.0.0.1
		{"64:ff9b::5db8:d822", true}, // NAT64 of 93.184.216.34
		{"64:ff9b:1::a00:1", false},  // local-use NAT64 of 10.0.0.1
		{"64:ff9b:1::7f00:1", false}, // local-use NAT64 of 127.0.0.1
		{"64:ff9b:1::5db8:d822", true},
		{"::a00:1", false},       // IPv4-compatible 10.0.0.1
		{"::7f00:1", false},      // IPv4-compatible 127.0.0.1
		{"::a9fe:a9fe", false},   // IPv4-compatible 169.254.169.254
		{"::5db8:d822", true},    // IPv4-compatible public address
		{"fec0::1", false},       // site-local
		{"feff::1", false},       // site-local, top of the range
		{"2002:a00:1::1", false}, // 6to4
		{"198.18.0.1", false},
		{"2001:db8::1", false},
		// Zoned: netip's prefix checks take none as inside any range, and
		// the dialer hands Control the zone a URL gave ("%25eth0").
		{"64:ff9b::a9fe:a9fe%1", false}, // NAT64 of 169.254.169.254
		{"64:ff9b::a00:1%eth0", false},  // NAT64 of 10.0.0.1
		{"::a00:1%1", false},            // IPv4-compatible 10.0.0.1
		{"2002:a00:1::1%1", false},      // 6to4
		{"fec0::1%1", false},            // site-local
		{"2001:0:a00:1::1%1", false},    // Teredo
		{"2606:2800:220:1:248:1893:25c8:1946%1", false},
		// Local-use NAT64 with a /48 translator: 10.0.0.1, whose low 32
		// bits read 8.8.8.8.
		{"64:ff9b:1:a00:0:100:808:808", false},
	}
	for _, tt := range tests {
		if got := PublicAddr(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("PublicAddr(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
}

func TestClientRefusesLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()

	_, err := Client(Options{Timeout: 2 * time.Second}).Get(srv.URL)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("guarded client reached %s: %v", srv.URL, err)
	}
	resp, err := Client(Options{AllowPrivate: true, Timeout: 2 * time.Second}).Get(srv.URL)
	if err != nil {
		t.Fatalf("unguarded client: %v", err)
	}
	resp.Body.Close()
}

func TestRedirects(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusFound))
	defer redirect.Close()

	resp, err := Client(Options{AllowPrivate: true, Timeout: 2 * time.Second}).Get(redirect.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("followed a redirect by default: %d", resp.StatusCode)
	}
	resp, err = Client(Options{AllowPrivate: true, Timeout: 2 * time.Second, FollowRedirects: true}).Get(redirect.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot {
		t.Fatalf("did not follow: %d", resp.StatusCode)
	}
}

// What the dialer hands Control for a zoned endpoint is refused there.
func TestDialControlRefusesZones(t *testing.T) {
	for _, addr := range []string{"[64:ff9b::a9fe:a9fe%1]:80", "[::a00:1%eth0]:443"} {
		if err := dialControl("tcp6", addr, nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("dialControl(%s) = %v, want ErrForbiddenAddress", addr, err)
		}
	}
}
