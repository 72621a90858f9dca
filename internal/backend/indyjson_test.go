package backend

import (
	"encoding/json"
	"testing"
)

func int64p(v int64) *int64 { return &v }

// indyRequests are requests whose encodings must be json.Marshal's byte
// for byte: every optional part present and absent, maps nil and empty,
// keys and values that need escaping.
func indyRequests(s1, s2 string, n int64) []*IndyProofRequest {
	return []*IndyProofRequest{
		{},
		{Name: s1, Version: s2, RequestedAttributes: map[string]IndyAttribute{}, RequestedPredicates: map[string]IndyPredicate{}},
		{
			Name: "proof <&>", Version: "1.0",
			RequestedAttributes: map[string]IndyAttribute{
				"b": {Name: s1, Restrictions: []map[string]string{{"cred_def_id": s2, "schema_name": "x"}, nil, {}}},
				s1:  {Names: []string{s1, s2, "é\u2028"}, NonRevoked: &NonRevoked{From: int64p(n)}},
				s2:  {NonRevoked: &NonRevoked{}},
				"":  {Name: "only"},
				"a": {Name: "n", Names: []string{}, Restrictions: []map[string]string{}, NonRevoked: &NonRevoked{From: int64p(1), To: int64p(n)}},
			},
			RequestedPredicates: map[string]IndyPredicate{
				"p":  {Name: "age", PType: ">=", PValue: int32(n), Restrictions: []map[string]string{{s1: s2}}},
				s2:   {Name: s1, PType: "<", PValue: -5, NonRevoked: &NonRevoked{To: int64p(-n)}},
				"p2": {},
			},
			NonRevoked: &NonRevoked{From: int64p(n), To: int64p(n + 1)},
		},
	}
}

func FuzzAppendIndyRequest(f *testing.F) {
	f.Add("name", "1.0", int64(18))
	f.Add("<script>&", "\xff\x00\"\\", int64(-1))
	f.Add("a\u2029b", "é", int64(1<<40))
	f.Fuzz(func(t *testing.T, s1, s2 string, n int64) {
		for _, r := range indyRequests(s1, s2, n) {
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := AppendIndyRequest(nil, r, true); string(got) != string(want) {
				t.Fatalf("AppendIndyRequest:\n got %s\nwant %s", got, want)
			}
		}
	})
}
