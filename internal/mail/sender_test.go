package mail

import (
	"fmt"
	"github.com/caddyserver/caddy/v2"
	"strings"
	"testing"
	"time"
)

// Two email blocks with different mail servers and senders on one
// storage share the default queue (Caddy's storage is one for every site
// unless a site names its own). Each block's mails go out through its own
// server, from its own sender: another block's workers leave them alone
// while that block runs.
func TestMailsGoThroughTheBlockThatQueuedThem(t *testing.T) {
	dir := t.TempDir()
	srvA, srvB := startServer(t, serverOptions{}), startServer(t, serverOptions{})
	cfgA, cfgB := testConfig(srvA.addr), testConfig(srvB.addr)
	cfgA.From = "Acme <noreply@acme.example>"
	cfgB.From = "Beta <noreply@beta.example>"
	a, b := newHarness(t, cfgA, dir), newHarness(t, cfgB, dir)
	const each = 12
	var ids []string
	for i := range each {
		for name, h := range map[string]*harness{"a": a, "b": b} {
			id := fmt.Sprintf("%s-%d", name, i)
			if err := h.d.Enqueue(t.Context(), testMessage(id, "alice@example.com")); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
	}
	a.d.Start()
	b.d.Start()
	a.d.Notify(ids...)
	b.d.Notify(ids...)
	for range 2 * each {
		select {
		case <-a.results:
		case <-b.results:
		case <-time.After(60 * time.Second):
			t.Fatal("not every mail was sent")
		}
	}
	for _, c := range []struct {
		name string
		srv  *testServer
		from string
	}{{"a", srvA, "noreply@acme.example"}, {"b", srvB, "noreply@beta.example"}} {
		got := c.srv.messages()
		if len(got) != each {
			t.Errorf("server %s received %d mails, want its block's %d", c.name, len(got), each)
		}
		for _, m := range got {
			h, _, _ := parseMail(t, m.Data)
			if id := h.Get("Message-Id"); m.From != c.from || !strings.HasPrefix(id, "<"+c.name+"-") {
				t.Errorf("server %s sent mail %s from %s", c.name, id, m.From)
			}
		}
	}
}

// A block whose deliverer stops (a reload changed its server, or removed
// it) leaves its queued mails to the blocks still running on the queue:
// they are sent at once, not lost.
func TestMailsOfAStoppedSenderAreSentByAnother(t *testing.T) {
	dir := t.TempDir()
	srvA, srvB := startServer(t, serverOptions{}), startServer(t, serverOptions{})
	cfgA, cfgB := testConfig(srvA.addr), testConfig(srvB.addr)
	cfgB.From = "Beta <noreply@beta.example>"
	a, b := newHarness(t, cfgA, dir), newHarness(t, cfgB, dir)
	b.d.Start()
	a.d.Start()
	ids := []string{"a-1", "a-2", "a-3"}
	for _, id := range ids {
		if err := a.d.Enqueue(t.Context(), testMessage(id, "alice@example.com")); err != nil {
			t.Fatal(err)
		}
	}
	b.d.Notify(ids...) // released, and seen by B first: still A's while A runs
	time.Sleep(300 * time.Millisecond)
	if got := srvB.messages(); len(got) != 0 {
		t.Fatalf("B sent %d of A's mails while A ran", len(got))
	}
	a.d.Stop()
	for range ids {
		if m := srvB.wait(t); m.From != "noreply@beta.example" {
			t.Fatalf("sent from %s", m.From)
		}
	}
	if got := srvA.messages(); len(got) != 0 {
		t.Fatalf("A's server received %d mails", len(got))
	}
}

// The fingerprint changes with what makes mails go out differently, and
// not with what an operator rotates or tunes.
func TestSenderID(t *testing.T) {
	base := testConfig("smtp.example.com:587")
	same := base
	same.SMTP = "SMTP.Example.com:587"
	same.Password = "rotated"
	same.Timeout = caddy.Duration(time.Minute)
	same.Workers = 8
	if base.senderID() != same.senderID() {
		t.Error("the host's case, the password, the timeout or the workers changed the sender")
	}
	for name, change := range map[string]func(*Config){
		"server":  func(c *Config) { c.SMTP = "smtp.example.com:465" },
		"account": func(c *Config) { c.Username = "other" },
		"from":    func(c *Config) { c.From = "Other <x@example.com>" },
	} {
		c := base
		change(&c)
		if c.senderID() == base.senderID() {
			t.Errorf("a different %s kept the sender", name)
		}
	}
}
