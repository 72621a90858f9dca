package mail

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// The status of a failed attempt is copied onto the proof record
// (metadata.email, which org API callers and include_record webhooks see);
// outbox.Status.LastError promises "no personal data or internal
// addresses". A failure before MAIL FROM stores the raw Go error, which
// names the mail server's resolved address (here 127.0.0.1:<port>; in
// production the relay's internal IP, or the resolver's on a DNS error).
func TestStatusDoesNotNameTheServersAddress(t *testing.T) {
	addr := freeAddr(t) // nothing listens: connection refused
	cfg := testConfig(addr)
	cfg.Timeout = caddy.Duration(5 * time.Second)
	d, err := NewDeliverer(cfg, NewOutbox(nil, ""), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	aerr := d.attempt(testMessage("m-1", "alice@example.org"))
	if aerr == nil {
		t.Fatal("attempt succeeded with no server")
	}
	host, port, _ := net.SplitHostPort(addr)
	if strings.Contains(aerr.text, host) || strings.Contains(aerr.text, ":"+port) {
		t.Fatalf("the public status text names the server's address: %q", aerr.text)
	}
}
