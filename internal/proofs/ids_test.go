package proofs

import (
	"crypto/aes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestDerivedIDs(t *testing.T) {
	for i := 0; i < 1000; i++ {
		rid := uuid.New()
		for _, d := range []struct {
			name    string
			fwd     uuid.UUID
			inverse func(uuid.UUID) uuid.UUID
		}{
			{"thread", ThreadID(rid), RecordIDForThread},
			{"invitation", InvitationID(rid), RecordIDForInvitation},
		} {
			if d.fwd == rid {
				t.Fatalf("%s id equals the record id", d.name)
			}
			if d.fwd.Version() != 4 || d.fwd.Variant() != uuid.RFC4122 {
				t.Fatalf("%s id %s is not a v4 UUID", d.name, d.fwd)
			}
			if _, ok := ParseID(d.fwd.String()); !ok {
				t.Fatalf("%s id %s does not parse", d.name, d.fwd)
			}
			if back := d.inverse(d.fwd); back != rid {
				t.Fatalf("%s: inverse %s, want %s", d.name, back, rid)
			}
		}
		if ThreadID(rid) == InvitationID(rid) {
			t.Fatal("thread and invitation ids collide")
		}
	}
}

func TestShortURLID(t *testing.T) {
	c, err := aes.NewCipher([]byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := aes.NewCipher([]byte("fedcba9876543210"))
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		rid := uuid.New()
		id := ShortURLID(c, rid)
		if len(id) != ShortURLIDLen || strings.ContainsAny(id, "+/=") {
			t.Fatalf("short id %q: want %d base64url characters", id, ShortURLIDLen)
		}
		if back, ok := RecordIDForShortURL(c, id); !ok || back != rid {
			t.Fatalf("RecordIDForShortURL(%q) = %s, %v; want %s", id, back, ok, rid)
		}
		if back, ok := RecordIDForShortURL(other, id); ok && back == rid {
			t.Fatalf("another key maps %q to the same record", id)
		}
		if seen[id] {
			t.Fatalf("two records share short id %q", id)
		}
		seen[id] = true
	}
	// An id is not the record id in another spelling: its bytes differ.
	rid := uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	id := ShortURLID(c, rid)
	if id == base64.RawURLEncoding.EncodeToString(rid[:]) {
		t.Fatal("the short id is the record id")
	}
	// About 1 in 64 random blocks decrypts to a v4 UUID; the rest are refused.
	refused := 0
	for i := 0; i < 640; i++ {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			t.Fatal(err)
		}
		if _, ok := RecordIDForShortURL(c, base64.RawURLEncoding.EncodeToString(b[:])); !ok {
			refused++
		}
	}
	if refused < 560 {
		t.Fatalf("%d of 640 random ids refused, want about 630", refused)
	}
	for _, bad := range []string{
		"",
		"AAAAAAAAAAAAAAAA", // a stored short URL's 16 characters
		id[:21],            // cut
		id + "A",           // longer
		id[:21] + "B",      // non-zero trailing bits: not canonical
		strings.Repeat("+", 22),
		strings.Replace(id, id[:1], "=", 1),
	} {
		if got, ok := RecordIDForShortURL(c, bad); ok {
			t.Errorf("RecordIDForShortURL(%q) = %s, want refused", bad, got)
		}
	}
}

func TestRecordIDForKey(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	a, b := RecordIDForKey(pub), RecordIDForKey(pub)
	if a != b || a.Version() != 4 || a.Variant() != uuid.RFC4122 {
		t.Fatalf("RecordIDForKey = %s, %s", a, b)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if RecordIDForKey(other) == a {
		t.Fatal("two keys map to one record id")
	}
}

func TestParseID(t *testing.T) {
	v4 := uuid.New().String()
	tests := []struct {
		in string
		ok bool
	}{
		{v4, true},
		{"6BA7B810-9DAD-41D1-80B4-00C04FD430C8", true},  // upper case v4
		{"6ba7b810-9dad-11d1-80b4-00c04fd430c8", false}, // v1
		{"urn:uuid:" + v4, false},
		{"{" + v4 + "}", false},
		{v4[:35], false},
		{"../../../../etc/passwd-0000000000000", false},
		{"", false},
	}
	for _, tt := range tests {
		u, ok := ParseID(tt.in)
		if ok != tt.ok {
			t.Errorf("ParseID(%q) ok = %v, want %v", tt.in, ok, tt.ok)
		}
		if ok && u.String() != strings.ToLower(tt.in) {
			t.Errorf("ParseID(%q) = %s, not the canonical form", tt.in, u)
		}
	}
	if rid, ok := RecordIDForThreadID(ThreadID(uuid.MustParse(v4)).String()); !ok || rid != v4 {
		t.Fatalf("RecordIDForThreadID = %s, %v", rid, ok)
	}
	if _, ok := RecordIDForThreadID("not-a-thread"); ok {
		t.Fatal("RecordIDForThreadID accepted junk")
	}
}
