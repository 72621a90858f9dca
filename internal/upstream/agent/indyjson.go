package agent

import "github.com/proofgate/proofgate/internal/jsonenc"

// The backends write their create requests by hand (Request.JSON): the
// same bytes json.Marshal writes (HTML-escaped strings, map keys sorted),
// which the tests hold them to; the AnonCreds request inside them is
// backend.AppendIndyRequest's.

// AppendString appends s as json.Marshal writes a string.
func AppendString(b []byte, s string) []byte { return jsonenc.AppendString(b, s, true) }
