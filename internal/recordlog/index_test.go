package recordlog

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
)

// TestIndexAsAMap: random sets and deletions, across many merges, leave
// the index holding exactly what a map holds.
func TestIndexAsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, want := newIndex(), map[uuid.UUID]loc{}
	var ids []uuid.UUID
	for i := range 60000 {
		switch r := rng.IntN(10); {
		case r < 6 || len(ids) == 0: // a new record
			id := uuid.New()
			ids = append(ids, id)
			at := loc{seg: 1 + uint32(rng.IntN(5)), n: uint32(i), ver: 1, off: uint32(i)}
			x.set(id, at)
			want[id] = at
		case r < 8: // a record written again (or one deleted, written again)
			id := ids[rng.IntN(len(ids))]
			at := loc{seg: 7, n: uint32(i), ver: 2, off: uint32(i)}
			x.set(id, at)
			want[id] = at
		default:
			id := ids[rng.IntN(len(ids))]
			x.del(id)
			delete(want, id)
		}
		if i%9973 == 0 {
			check(t, x, want, ids)
		}
	}
	check(t, x, want, ids)
	if len(x.base) == 0 {
		t.Fatal("no merge happened")
	}
}

func check(t *testing.T, x *index, want map[uuid.UUID]loc, ids []uuid.UUID) {
	t.Helper()
	if x.len() != len(want) {
		t.Fatalf("len %d, want %d", x.len(), len(want))
	}
	for _, id := range ids {
		at, ok := x.get(id)
		w, wok := want[id]
		if ok != wok || at != w {
			t.Fatalf("%s: %+v %v, want %+v %v", id, at, ok, w, wok)
		}
	}
	seen := 0
	x.each(func(id uuid.UUID, at loc) {
		seen++
		if want[id] != at {
			t.Fatalf("each: %s at %+v, want %+v", id, at, want[id])
		}
	})
	if seen != len(want) {
		t.Fatalf("each saw %d, want %d", seen, len(want))
	}
}

func TestCompareIDs(t *testing.T) {
	a := uuid.MustParse("00000000-0000-0000-0000-000000000001")
	b := uuid.MustParse("00000000-0000-0000-0000-000000000002")
	c := uuid.MustParse("10000000-0000-0000-0000-000000000000")
	for _, tc := range []struct {
		x, y uuid.UUID
		want int
	}{{a, b, -1}, {b, a, 1}, {a, a, 0}, {b, c, -1}, {c, a, 1}} {
		if got := compareIDs(tc.x, tc.y); got != tc.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
	}
}
