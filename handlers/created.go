package handlers

import (
	"net/http"
	"slices"
	"sync"

	"github.com/proofgate/proofgate/internal/jsonenc"
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
	buf := getBody()
	b := slices.Grow((*buf)[:0], 256+len(d.ProofRecordID)+len(d.ProofRecordThID)+len(d.OutOfBandID)+len(d.InvitationURL)+len(d.LongInvitationURL)+len(d.Invitation))
	b = append(b, `{"statusCode":201,"success":true,"message":"Proof request sent successfully.","data":{"proofRecordId":`...)
	b = appendJSONString(b, d.ProofRecordID)
	b = append(b, `,"proofRecordThId":`...)
	b = appendJSONString(b, d.ProofRecordThID)
	b = append(b, `,"outOfBandId":`...)
	b = appendJSONString(b, d.OutOfBandID)
	b = append(b, `,"invitationUrl":`...)
	start := len(b)
	b = appendJSONString(b, d.InvitationURL)
	encoded := b[start:]
	b = append(b, `,"longInvitationUrl":`...)
	if d.LongInvitationURL == d.InvitationURL {
		b = append(b, encoded...) // no short URL: the same kilobytes again
	} else {
		b = appendJSONString(b, d.LongInvitationURL)
	}
	b = append(b, `,"invitation":`...)
	if len(d.Invitation) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, d.Invitation...)
	}
	b = append(b, "}}"...)
	writeBody(w, http.StatusCreated, b)
	putBody(buf, b)
}

// bodyBuffers keeps the buffers of hand-made answers for reuse: a
// ResponseWriter copies what it is given (io.Writer must not retain p),
// so a buffer is free again once written. Reuse spares allocating and
// zeroing kilobytes per answer.
var bodyBuffers sync.Pool

// maxPooledBody bounds the buffers kept.
const maxPooledBody = 64 << 10

func getBody() *[]byte {
	if p, ok := bodyBuffers.Get().(*[]byte); ok {
		return p
	}
	return new([]byte)
}

func putBody(p *[]byte, b []byte) {
	if cap(b) > maxPooledBody {
		return
	}
	*p = b[:0]
	bodyBuffers.Put(p)
}

// appendJSONString appends s as a JSON string exactly as writeJSON's
// encoder writes it (encoding/json without HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	return jsonenc.AppendString(b, s, false)
}
