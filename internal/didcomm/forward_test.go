package didcomm

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/proofgate/proofgate/internal/didkey"
)

// TestPackForRouting wraps a message for two mediators and unwraps it hop
// by hop as the mediators and the recipient would.
func TestPackForRouting(t *testing.T) {
	wallet, walletKeys := newKeys(t, 1)
	mediators, routingKeys := newKeys(t, 2)
	_, senderPriv, _ := didkey.Generate()
	msg := []byte(`{"@type":"https://didcomm.org/present-proof/2.0/ack","status":"OK"}`)

	// routing keys as did:key, as newer agents write them
	routing := []string{
		didkey.Encode(mediators[routingKeys[0]].Public().(ed25519.PublicKey)),
		routingKeys[1],
	}
	env, err := PackFor(msg, walletKeys, routing, senderPriv)
	if err != nil {
		t.Fatal(err)
	}
	// Outermost: the last routing key, anoncrypted, forward to the first.
	hops := []struct{ key, wantTo string }{
		{routingKeys[1], routingKeys[0]},
		{routingKeys[0], walletKeys[0]},
	}
	for i, hop := range hops {
		un, err := Unpack(env, keyring{hop.key: mediators[hop.key]}.find)
		if err != nil {
			t.Fatalf("hop %d: %v", i, err)
		}
		if un.SenderVerkey != "" {
			t.Fatalf("hop %d: forward is authcrypted by %s", i, un.SenderVerkey)
		}
		fwd, ok, err := ParseForward(un.Message)
		if !ok || err != nil || fwd.To != hop.wantTo || fwd.ID == "" {
			t.Fatalf("hop %d: forward %+v ok=%v err=%v", i, fwd, ok, err)
		}
		env = fwd.Msg
	}
	un, err := Unpack(env, wallet.find)
	if err != nil || !bytes.Equal(un.Message, msg) || un.SenderVerkey != didkey.Verkey(senderPriv.Public().(ed25519.PublicKey)) {
		t.Fatalf("recipient: %q from %s, %v", un.Message, un.SenderVerkey, err)
	}

	// No routing keys: just the envelope.
	env, err = PackFor(msg, walletKeys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if un, err := Unpack(env, wallet.find); err != nil || !bytes.Equal(un.Message, msg) {
		t.Fatalf("direct: %q, %v", un.Message, err)
	}
	if _, err := PackFor(msg, walletKeys, []string{"bad"}, nil); err == nil {
		t.Fatal("bad routing key accepted")
	}
}

func TestParseForward(t *testing.T) {
	tests := []struct {
		msg     string
		ok, err bool
	}{
		{`{"@type":"https://didcomm.org/routing/1.0/forward","to":"k","msg":{"protected":"x"}}`, true, false},
		{`{"@type":"did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/routing/1.0/forward","to":"k","msg":{}}`, true, false},
		{`{"@type":"https://didcomm.org/routing/1.0/forward","to":"k"}`, true, true},
		{`{"@type":"https://didcomm.org/routing/1.0/forward","to":1,"msg":{}}`, true, true},
		{`{"@type":"https://didcomm.org/present-proof/2.0/presentation"}`, false, false},
		{`not json`, false, false},
	}
	for _, tt := range tests {
		_, ok, err := ParseForward([]byte(tt.msg))
		if ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("%s: ok=%v err=%v", tt.msg, ok, err)
		}
	}
}

func TestParseType(t *testing.T) {
	tests := []struct {
		in   string
		want MessageType
		ok   bool
	}{
		{"https://didcomm.org/present-proof/2.0/presentation", MessageType{"present-proof", "2", "0", "presentation"}, true},
		{"did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/present-proof/1.0/presentation", MessageType{"present-proof", "1", "0", "presentation"}, true},
		{"https://didcomm.org/notification/1.0/problem-report", MessageType{"notification", "1", "0", "problem-report"}, true},
		{"https://didcomm.org/present-proof/2/presentation", MessageType{}, false},
		{"https://didcomm.org/present-proof/2.0/presentation/x", MessageType{}, false},
		{"https://example.org/present-proof/2.0/presentation", MessageType{}, false},
		{"", MessageType{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseType(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseType(%q) = %+v, %v", tt.in, got, ok)
		}
	}
}
