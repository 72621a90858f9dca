package ownerlog

import (
	"encoding/json"
	"testing"
)

func TestAppendDocumentIsJSONMarshal(t *testing.T) {
	full := Entry{ID: uuidN(1), OrgID: "org-1", Tenant: "t", Agent: "credo http://agent:3000", ThreadID: "th", CreatedAt: "2026-11-24T10:00:00Z", RequestType: "presentationExchange"}
	tests := []struct {
		name string
		doc  document
	}{
		{"nil owners", document{}},
		{"no owners", document{Owners: []Entry{}}},
		{"one owner, only the required fields", document{Owners: []Entry{{ID: uuidN(2), OrgID: "org-2"}}}},
		{"every field", document{Owners: []Entry{full}}},
		{"several owners and forgotten ids", document{Owners: []Entry{full, {ID: uuidN(3), OrgID: "org-3", ThreadID: "x"}}, Forgotten: []string{uuidN(4), uuidN(5)}}},
		{"forgotten ids only", document{Forgotten: []string{uuidN(6)}}},
		{"forgotten ids with their times", document{Owners: []Entry{}, Forgotten: []string{uuidN(7), uuidN(8)}, ForgottenAt: []int64{1795600000, 1}}},
		{"empty forgotten list is left out", document{Owners: []Entry{}, Forgotten: []string{}}},
		{"strings encoding/json escapes", document{Owners: []Entry{{ID: "a\"b\\c", OrgID: "<org>&", Tenant: "\x00\n\u2028", Agent: "bad \xff", ThreadID: "é😀"}}, Forgotten: []string{"\t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertMarshalled(t, tt.doc)
		})
	}
}

// FuzzAppendDocument holds appendDocument to json.Marshal for documents
// of up to two owners.
func FuzzAppendDocument(f *testing.F) {
	f.Add("id", "org", "", "", "", "", "", 1, 0)
	f.Add("a\"<", "\xff", "t", "credo http://x", "th", "2026", "gone", 2, 1)
	f.Fuzz(func(t *testing.T, id, org, tenant, agent, thread, created, forgotten string, owners, forgottenN int) {
		e := Entry{ID: id, OrgID: org, Tenant: tenant, Agent: agent, ThreadID: thread, CreatedAt: created, RequestType: forgotten}
		var doc document
		for range owners % 3 {
			doc.Owners = append(doc.Owners, e)
		}
		for i := range forgottenN % 3 {
			doc.Forgotten = append(doc.Forgotten, forgotten)
			if owners%2 == 1 {
				doc.ForgottenAt = append(doc.ForgottenAt, int64(i)<<33-int64(owners))
			}
		}
		assertMarshalled(t, doc)
	})
}

func assertMarshalled(t *testing.T, doc document) {
	t.Helper()
	want, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendDocument([]byte("x"), doc); string(got) != "x"+string(want) {
		t.Fatalf("appendDocument = %s\njson.Marshal   = %s", got[1:], want)
	}
}

func BenchmarkAppendDocument(b *testing.B) {
	doc := document{Owners: []Entry{
		{ID: uuidN(1), OrgID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Agent: "credo http://127.0.0.1:3000", ThreadID: uuidN(9), CreatedAt: "2026-11-24T10:00:00.123456789Z"},
		{ID: uuidN(2), OrgID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Agent: "credo http://127.0.0.1:3000", ThreadID: uuidN(8), CreatedAt: "2026-11-24T10:00:00.123456789Z"},
		{ID: uuidN(3), OrgID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Agent: "credo http://127.0.0.1:3000", ThreadID: uuidN(7), CreatedAt: "2026-11-24T10:00:00.123456789Z"},
	}}
	b.Run("appendDocument", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = appendDocument(buf[:0], doc)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
