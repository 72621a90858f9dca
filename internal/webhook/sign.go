package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks header names (https://www.standardwebhooks.com/).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretPrefix marks a Standard Webhooks symmetric secret.
const secretPrefix = "whsec_"

// Secret sizes the specification allows (24 to 64 random bytes).
const (
	minSecret = 24
	maxSecret = 64
)

// ParseSecret decodes a Standard Webhooks secret: base64, optionally
// prefixed "whsec_", of 24 to 64 bytes. The error never repeats it.
func ParseSecret(s string) ([]byte, error) {
	raw := strings.TrimPrefix(strings.TrimSpace(s), secretPrefix)
	if raw == "" {
		return nil, errors.New("secret is empty")
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, errors.New("secret is not base64 (whsec_<base64 of 24 to 64 random bytes>)")
	}
	if len(key) < minSecret || len(key) > maxSecret {
		return nil, errors.New("secret must decode to 24 to 64 bytes")
	}
	return key, nil
}

// Sign returns the webhook-signature value of a message: "v1," and the
// base64 HMAC-SHA256, under key, of "<id>.<unix timestamp>.<body>".
func Sign(key []byte, id string, at time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(at.Unix(), 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Verify checks a received message the way a Standard Webhooks receiver
// does: one of the space-separated v1 signatures matches (compared in
// constant time) and the timestamp is within tolerance of now. proofgate
// only signs; Verify is what its tests and documentation hold it to.
func Verify(key []byte, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not a number")
	}
	at := time.Unix(sec, 0)
	if now.Sub(at) > tolerance || at.Sub(now) > tolerance {
		return errors.New("webhook-timestamp is outside the tolerance")
	}
	want := Sign(key, id, at, body)
	for _, sig := range strings.Fields(signatures) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no matching signature")
}
