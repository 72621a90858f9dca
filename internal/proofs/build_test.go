package proofs

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"regexp"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestNewNonce(t *testing.T) {
	decimal := regexp.MustCompile(`^[1-9][0-9]*$`)
	limit := new(big.Int).Lsh(big.NewInt(1), 80)
	seen := map[string]bool{}
	half := new(big.Int).Rsh(limit, 1)
	high := 0
	for i := 0; i < 2000; i++ {
		n, err := NewNonce()
		if err != nil {
			t.Fatal(err)
		}
		if !decimal.MatchString(n) {
			t.Fatalf("nonce %q is not a decimal without leading zero", n)
		}
		v, _ := new(big.Int).SetString(n, 10)
		if v.Cmp(limit) >= 0 {
			t.Fatalf("nonce %s has more than 80 bits", n)
		}
		if seen[n] {
			t.Fatalf("nonce %s repeated", n)
		}
		seen[n] = true
		if v.Cmp(half) >= 0 {
			high++
		}
	}
	// The top bit is set in half the draws (σ ≈ 22): anything far off
	// means the nonce is not 80 random bits.
	if high < 850 || high > 1150 {
		t.Fatalf("%d of 2000 nonces have bit 79 set", high)
	}
}

func TestInvitationURL(t *testing.T) {
	inv := []byte(`{"@id":"x","label":"ü?&="}`)
	enc := base64.RawURLEncoding.EncodeToString(inv)
	tests := []struct{ base, want string }{
		{"https://v.example.com", "https://v.example.com?oob=" + enc},
		{"https://v.example.com/", "https://v.example.com/?oob=" + enc},
		{"https://v.example.com/invite?lang=en", "https://v.example.com/invite?lang=en&oob=" + enc},
		{"https://v.example.com/i?", "https://v.example.com/i?oob=" + enc},
		{"https://v.example.com/i#frag", "https://v.example.com/i?oob=" + enc + "#frag"},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x?oob=" + enc},
	}
	for _, tt := range tests {
		got, err := InvitationURL(tt.base, inv)
		if err != nil || got != tt.want {
			t.Errorf("InvitationURL(%q) = %q, %v\nwant %q", tt.base, got, err, tt.want)
		}
	}
	if _, err := InvitationURL("http://[::1", inv); err == nil {
		t.Error("bad base URL accepted")
	}
}

func TestBuildRequestErrors(t *testing.T) {
	p := RequestParams{ThreadID: "t", InvitationID: "i"}
	pd := json.RawMessage(`{"id":"x","input_descriptors":[]}`)
	for name, req := range map[string]backend.OOBRequest{
		"v1 PE":          {RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV1, PresentationDefinition: pd},
		"indy no format": {RequestType: backend.RequestIndy, ProtocolVersion: backend.ProtocolV2},
		"PE no def":      {RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV2},
		"bad type":       {RequestType: "x", ProtocolVersion: backend.ProtocolV2},
		"bad version":    {RequestType: backend.RequestPresentationExchange, ProtocolVersion: "v3", PresentationDefinition: pd},
	} {
		if _, err := BuildRequest(req, p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestBuildAck(t *testing.T) {
	for version, typ := range map[string]string{backend.ProtocolV2: TypeAckV2, backend.ProtocolV1: TypeAckV1} {
		b, err := BuildAck(version, "thread-1", "inv-1")
		if err != nil {
			t.Fatal(err)
		}
		var ack map[string]any
		if err := json.Unmarshal(b, &ack); err != nil {
			t.Fatal(err)
		}
		th, _ := ack["~thread"].(map[string]any)
		if ack["@type"] != typ || ack["status"] != "OK" || ack["@id"] == "" || th["thid"] != "thread-1" || th["pthid"] != "inv-1" {
			t.Errorf("%s ack %s", version, b)
		}
	}
}
