package ownerlog

import "github.com/proofgate/proofgate/internal/jsonenc"

// appendDocument appends doc as json.Marshal writes it: the same bytes
// (encode_test.go checks them, and fuzzes them), without reflection. Every
// upstream create commits an owner line, and encoding/json was a tenth of
// the committer's own work on it.
func appendDocument(b []byte, doc document) []byte {
	b = append(b, `{"owners":`...)
	if doc.Owners == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range doc.Owners {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEntry(b, e)
		}
		b = append(b, ']')
	}
	if len(doc.Forgotten) > 0 {
		b = append(b, `,"forgotten":[`...)
		for i, id := range doc.Forgotten {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, id, true)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

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
