package didcomm

import (
	"encoding/base64"
	"errors"
	"strings"
)

// decodeB64 decodes base64url with or without padding (RFC 0019 receivers
// must take both). Padding, if present, must be correct.
func decodeB64(s string) ([]byte, error) {
	if strings.HasSuffix(s, "=") {
		return base64.URLEncoding.DecodeString(s)
	}
	return base64.RawURLEncoding.DecodeString(s)
}

var errFieldTooLong = errors.New("field too long")

// decodeB64Capped is decodeB64 for the small per-recipient fields (keys,
// nonces, sealed verkeys), which are never longer than maxField.
func decodeB64Capped(s string) ([]byte, error) {
	if len(s) > maxField {
		return nil, errFieldTooLong
	}
	return decodeB64(s)
}

// encodeB64 is unpadded base64url, as ACA-Py and Credo write.
func encodeB64(b []byte) string {
	return base64.RawURLEncoding.EncodeToString(b)
}
