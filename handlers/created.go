package handlers

import (
	"net/http"
	"unicode/utf8"
)

// writeCreatedOne writes 4.1's 201 for one proof request: the same
// document writeCreated(w, d) writes, put together by hand, because
// encoding/json would re-validate and copy the invitation (a RawMessage of
// one or two KiB) and escape the long URL byte by byte, which was a third
// of the create path's CPU (BenchmarkCreatePath). The invitation is valid
// JSON by the backends' contract: the local verifier encodes it with
// encoding/json, and the agents' answers were parsed by encoding/json into
// it. Like writeCreated, this never fails.
func writeCreatedOne(w http.ResponseWriter, d oobData) {
	b := make([]byte, 0, 256+len(d.ProofRecordID)+len(d.ProofRecordThID)+len(d.OutOfBandID)+len(d.InvitationURL)+len(d.LongInvitationURL)+len(d.Invitation))
	b = append(b, `{"statusCode":201,"success":true,"message":"Proof request sent successfully.","data":{"proofRecordId":`...)
	b = appendJSONString(b, d.ProofRecordID)
	b = append(b, `,"proofRecordThId":`...)
	b = appendJSONString(b, d.ProofRecordThID)
	b = append(b, `,"outOfBandId":`...)
	b = appendJSONString(b, d.OutOfBandID)
	b = append(b, `,"invitationUrl":`...)
	b = appendJSONString(b, d.InvitationURL)
	b = append(b, `,"longInvitationUrl":`...)
	b = appendJSONString(b, d.LongInvitationURL)
	b = append(b, `,"invitation":`...)
	if len(d.Invitation) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, d.Invitation...)
	}
	b = append(b, "}}"...)
	writeBody(w, http.StatusCreated, b)
}

// appendJSONString appends s as a JSON string exactly as writeJSON's
// encoder writes it (encoding/json without HTML escaping): '"', '\\' and
// control characters escaped (\b, \f, \n, \r, \t by name, others as
// \u00XX), each invalid UTF-8 byte as \ufffd, and U+2028 and U+2029 as
// \u2028 and \u2029; everything else as it is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
