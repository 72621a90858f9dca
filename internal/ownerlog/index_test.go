package ownerlog

import (
	"fmt"
	"testing"
)

func TestParseUUID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"3fa85f64-5717-4562-b3fc-2c963f66afa6", true},
		{"3FA85F64-5717-4562-B3FC-2C963F66AFA6", false}, // another spelling: kept as a string
		{"3fa85f64x5717-4562-b3fc-2c963f66afa6", false},
		{"3fa85f64-5717-4562-b3fc-2c963f66afa", false},
		{"{3fa85f64-5717-4562-b3fc-2c963f66afa}", false},
		{"3fa85f64-5717-4562-b3fc-2c963f66afg6", false},
		{"", false},
	} {
		u, ok := parseUUID(tc.id)
		if ok != tc.ok {
			t.Errorf("parseUUID(%q) ok = %v", tc.id, ok)
		}
		if ok && fmt.Sprintf("%x-%x-%x-%x-%x", u[:4], u[4:6], u[6:8], u[8:10], u[10:]) != tc.id {
			t.Errorf("parseUUID(%q) = %x", tc.id, u)
		}
	}
	// Two spellings of one UUID are two records.
	x := newIndex()
	x.add([]Entry{{ID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", OrgID: "a"}}, nil)
	if _, ok := x.get("3FA85F64-5717-4562-B3FC-2C963F66AFA6"); ok {
		t.Fatal("an upper-case spelling found the lower-case record")
	}
}
