package proofs

import (
	"strings"
	"testing"
)

// FuzzParseID: ids from the network (thread ids, record ids, invitation
// ids) parse only as canonical-length v4 UUIDs, and the derived ids map
// back.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{
		"6ba822ed-1f81-4d59-b602-3fb96d3bf272", "6BA822ED-1F81-4D59-B602-3FB96D3BF272",
		"6ba822ed1f814d59b6023fb96d3bf272", "{6ba822ed-1f81-4d59-b602-3fb96d3bf272}",
		"urn:uuid:6ba822ed-1f81-4d59-b602-3fb96d3bf272", "6ba822ed-1f81-1d59-b602-3fb96d3bf272",
		"", "../../../../etc/passwd..................",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := ParseID(s)
		if !ok {
			return
		}
		if u.String() != strings.ToLower(s) {
			t.Fatalf("%q parsed as %s: not its canonical form", s, u)
		}
		if RecordIDForThread(ThreadID(u)) != u || RecordIDForInvitation(InvitationID(u)) != u {
			t.Fatalf("derived ids of %s do not map back", u)
		}
		if tid, ok := RecordIDForThreadID(ThreadID(u).String()); !ok || tid != u.String() {
			t.Fatalf("thread id of %s does not lead back", u)
		}
	})
}
