package ownerlog

import "github.com/proofgate/proofgate/internal/jsonenc"

// appendDocument appends doc as json.Marshal writes it: the same bytes
// (encode_test.go checks them, and fuzzes them), without reflection. Every
// upstream create commits an owner line, and encoding/json was a tenth of
// the committer's own work on it.
func appendDocument(b []byte, doc document) []byte {
	b = append(b, `{"owners":`...)
	b = jsonenc.AppendArray(b, doc.Owners, appendEntry)
	if len(doc.Forgotten) > 0 {
		b = append(b, `,"forgotten":`...)
		b = jsonenc.AppendArray(b, doc.Forgotten, appendID)
	}
	return append(b, '}')
}

func appendID(b []byte, id string) []byte { return jsonenc.AppendString(b, id, true) }

// appendEntry appends e in Entry's field order, leaving out the empty
// omitempty fields.
func appendEntry(b []byte, e Entry) []byte {
	b = append(b, `{"id":`...)
	b = jsonenc.AppendString(b, e.ID, true)
	b = append(b, `,"orgId":`...)
	b = jsonenc.AppendString(b, e.OrgID, true)
	b = appendOptional(b, `,"tenant":`, e.Tenant)
	b = appendOptional(b, `,"agent":`, e.Agent)
	b = appendOptional(b, `,"threadId":`, e.ThreadID)
	b = appendOptional(b, `,"createdAt":`, e.CreatedAt)
	return append(b, '}')
}

func appendOptional(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return jsonenc.AppendString(append(b, key...), v, true)
}
