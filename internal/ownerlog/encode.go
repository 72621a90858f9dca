package ownerlog

import (
	"strconv"

	"github.com/proofgate/proofgate/internal/jsonenc"
	"github.com/proofgate/proofgate/internal/store"
)

// appendDocument appends doc as json.Marshal writes it: the same bytes
// (encode_test.go checks them, and fuzzes them), without reflection. Every
// upstream create commits an owner line, and encoding/json was a tenth of
// the committer's own work on it.
func appendDocument(b []byte, doc document) []byte {
	b = append(b, `{"owners":`...)
	b = jsonenc.AppendArray(b, doc.Owners, appendEntry)
	if len(doc.Forgotten) > 0 {
		b = append(b, `,"forgotten":`...)
		b = jsonenc.AppendArray(b, doc.Forgotten, store.AppendString)
	}
	if len(doc.ForgottenAt) > 0 {
		b = append(b, `,"forgottenAt":`...)
		b = jsonenc.AppendArray(b, doc.ForgottenAt, func(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) })
	}
	return append(b, '}')
}

// appendEntry appends e in Entry's field order, leaving out the empty
// omitempty fields.
func appendEntry(b []byte, e Entry) []byte {
	b = append(b, `{"id":`...)
	b = store.AppendString(b, e.ID)
	b = append(b, `,"orgId":`...)
	b = store.AppendString(b, e.OrgID)
	b = appendOptional(b, `,"tenant":`, e.Tenant)
	b = appendOptional(b, `,"agent":`, e.Agent)
	b = appendOptional(b, `,"threadId":`, e.ThreadID)
	b = appendOptional(b, `,"createdAt":`, e.CreatedAt)
	b = appendOptional(b, `,"requestType":`, e.RequestType)
	return append(b, '}')
}

func appendOptional(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return store.AppendString(append(b, key...), v)
}
