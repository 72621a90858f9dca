package didcomm

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// TypeForward is the RFC 0094 forward message a mediator unwraps.
const TypeForward = "https://didcomm.org/routing/1.0/forward"

// MaxRoutingKeys caps the mediators one message is wrapped for.
const MaxRoutingKeys = 8

// Forward is an RFC 0094 forward message: Msg is the envelope for the next
// hop, To the key it is for.
type Forward struct {
	Type string          `json:"@type"`
	ID   string          `json:"@id"`
	To   string          `json:"to"`
	Msg  json.RawMessage `json:"msg"`
}

// PackFor packs msg for a DIDComm service: encrypted to recipientKeys
// (authcrypt with sender, anoncrypt when sender is nil), then, for each
// routing key in order, wrapped in a forward message anoncrypted to that
// routing key. The outermost envelope is for the last routing key, which
// is the mediator the service endpoint belongs to. Each forward's "to" is
// the key the envelope inside it is for (the first recipient key, then
// the previous routing key), as Credo and ACA-Py address them.
func PackFor(msg []byte, recipientKeys, routingKeys []string, sender ed25519.PrivateKey) ([]byte, error) {
	if len(routingKeys) > MaxRoutingKeys {
		return nil, fmt.Errorf("didcomm: %d routing keys (at most %d)", len(routingKeys), MaxRoutingKeys)
	}
	env, err := Pack(msg, recipientKeys, sender)
	if err != nil {
		return nil, err
	}
	to, err := Verkey(recipientKeys[0])
	if err != nil {
		return nil, err
	}
	for _, rk := range routingKeys {
		next, err := Verkey(rk)
		if err != nil {
			return nil, fmt.Errorf("didcomm: routing key %q: %w", rk, err)
		}
		id, err := uuid.NewRandom()
		if err != nil {
			return nil, err
		}
		fwd, err := json.Marshal(Forward{Type: TypeForward, ID: id.String(), To: to, Msg: env})
		if err != nil {
			return nil, err
		}
		if env, err = Pack(fwd, []string{next}, nil); err != nil {
			return nil, err
		}
		to = next
	}
	return env, nil
}

// ParseForward reads a plaintext forward message; ok is false when msg is
// not one.
func ParseForward(msg []byte) (fwd Forward, ok bool, err error) {
	var probe struct {
		Type string `json:"@type"`
	}
	if json.Unmarshal(msg, &probe) != nil || NormalizeType(probe.Type) != TypeForward {
		return Forward{}, false, nil
	}
	if err := json.Unmarshal(msg, &fwd); err != nil {
		return Forward{}, true, err
	}
	if fwd.To == "" || len(fwd.Msg) == 0 {
		return Forward{}, true, errors.New("didcomm: forward without to or msg")
	}
	return fwd, true, nil
}
