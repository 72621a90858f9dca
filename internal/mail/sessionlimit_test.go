package mail

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// A mail server (or whoever answers on its address) that sends one endless
// reply line: the session stops reading after maxSessionRead bytes and
// the attempt fails (to be retried), instead of buffering the line for as
// long as the session's timeout allows. Below TLS too (implicit TLS).
func TestSMTPSessionReadsAreCapped(t *testing.T) {
	tlsCfg, caFile := testCert(t)
	for _, tt := range []struct {
		name string
		mode string
		wrap func(net.Conn) net.Conn
	}{
		// starttls (the default): the greeting comes before STARTTLS.
		{"greeting before STARTTLS", TLSStartTLS, func(c net.Conn) net.Conn { return c }},
		{"greeting inside implicit TLS", TLSImplicit, func(c net.Conn) net.Conn { return tls.Server(c, tlsCfg) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				raw, err := ln.Accept()
				if err != nil {
					return
				}
				c := tt.wrap(raw)
				defer c.Close()
				c.Write([]byte("220 "))
				chunk := bytes.Repeat([]byte("A"), 1<<20)
				for {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
			cfg := testConfig(ln.Addr().String())
			cfg.TLS = tt.mode
			cfg.CAFile = caFile
			cfg.Timeout = caddy.Duration(5 * time.Second)
			d, err := NewDeliverer(cfg, NewOutbox(nil, ""), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var peak uint64
			stop, done := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				var m runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					runtime.ReadMemStats(&m)
					peak = max(peak, m.HeapAlloc)
				}
			}()
			aerr := d.attempt(testMessage("m-1", "alice@example.org"))
			close(stop)
			<-done
			t.Logf("attempt: %v; peak heap %d MiB", aerr, peak>>20)
			if aerr == nil || aerr.permanent || !errors.Is(aerr.err, errSessionRead) {
				t.Fatalf("attempt = %v, want a temporary failure for the reply size", aerr)
			}
			if peak > 64<<20 {
				t.Fatalf("one SMTP greeting held %d MiB of memory", peak>>20)
			}
		})
	}
}
