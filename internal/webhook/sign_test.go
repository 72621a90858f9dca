package webhook

import (
	"strconv"
	"testing"
	"time"
)

// The Standard Webhooks reference libraries' known answer
// (libraries/go/webhook_test.go, TestWebhookSign).
func TestSignKnownAnswer(t *testing.T) {
	key, err := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
	// The prefix is optional.
	if k2, err := ParseSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"); err != nil || string(k2) != string(key) {
		t.Fatalf("without prefix: %v", err)
	}
}

func TestVerify(t *testing.T) {
	key, _ := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	now := time.Unix(1_700_000_000, 0)
	body := []byte(`{"a":1}`)
	sig := Sign(key, "msg-1", now, body)
	ts := strconv.FormatInt(now.Unix(), 10)
	tests := []struct {
		name         string
		id, ts, sigs string
		body         string
		now          time.Time
		ok           bool
	}{
		{"valid", "msg-1", ts, sig, string(body), now, true},
		{"among others", "msg-1", ts, "v1,AAAA " + sig + " v2,BBBB", string(body), now, true},
		{"tampered body", "msg-1", ts, sig, `{"a":2}`, now, false},
		{"other id", "msg-2", ts, sig, string(body), now, false},
		{"old", "msg-1", ts, sig, string(body), now.Add(6 * time.Minute), false},
		{"future", "msg-1", ts, sig, string(body), now.Add(-6 * time.Minute), false},
		{"bad timestamp", "msg-1", "x", sig, string(body), now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(key, tt.id, tt.ts, tt.sigs, []byte(tt.body), tt.now, 5*time.Minute)
			if (err == nil) != tt.ok {
				t.Fatalf("Verify = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestParseSecretRejects(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_!!!", "whsec_c2hvcnQ=", "whsec_" + string(make([]byte, 200))} {
		if _, err := ParseSecret(s); err == nil {
			t.Errorf("ParseSecret(%q) accepted", s)
		}
	}
}
