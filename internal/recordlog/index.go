package recordlog

import (
	"encoding/binary"
	"slices"

	"github.com/google/uuid"
)

// entry is one record's place: 32 bytes, packed in index.base.
type entry struct {
	id uuid.UUID
	at loc
}

// index maps every record held to its place, in memory. Most records sit
// in base, a slice sorted by id (32 bytes a record, found by binary
// search); what changed since base was built sits in recent, a map (a
// deletion of a record in base is a zero loc there: no file has sequence
// number 0). When recent grows past an eighth of base it is merged in. A
// Go map of every record took about 85 bytes a record, and twice that in
// RSS once the garbage collector's headroom is counted; base takes 32,
// recent about 10 more on average. Callers synchronize (the Log's mu).
type index struct {
	base   []entry
	recent map[uuid.UUID]loc
	n      int // records held
}

func newIndex() *index { return &index{recent: make(map[uuid.UUID]loc)} }

// mergeMin is the size recent reaches before any merge.
const mergeMin = 1024

func (x *index) len() int { return x.n }

// get returns id's place.
func (x *index) get(id uuid.UUID) (loc, bool) {
	if at, ok := x.recent[id]; ok {
		return at, at.seg != 0
	}
	return x.inBase(id)
}

func (x *index) inBase(id uuid.UUID) (loc, bool) {
	i, found := slices.BinarySearchFunc(x.base, id, func(e entry, id uuid.UUID) int { return compareIDs(e.id, id) })
	if !found {
		return loc{}, false
	}
	return x.base[i].at, true
}

// set makes at the place of id.
func (x *index) set(id uuid.UUID, at loc) {
	if _, held := x.get(id); !held {
		x.n++
	}
	x.recent[id] = at
	x.maybeMerge()
}

// del forgets id.
func (x *index) del(id uuid.UUID) {
	if _, held := x.get(id); !held {
		return
	}
	x.n--
	if _, inBase := x.inBase(id); inBase {
		x.recent[id] = loc{}
	} else {
		delete(x.recent, id)
	}
	x.maybeMerge()
}

// each calls fn with every record held and its place, in no order.
func (x *index) each(fn func(id uuid.UUID, at loc)) {
	for _, e := range x.base {
		if _, changed := x.recent[e.id]; !changed {
			fn(e.id, e.at)
		}
	}
	for id, at := range x.recent {
		if at.seg != 0 {
			fn(id, at)
		}
	}
}

// maybeMerge merges recent into a new base once it is large enough that
// the merge's copy, spread over the changes that filled it, costs a few
// entries' copy each.
func (x *index) maybeMerge() {
	if len(x.recent) < max(mergeMin, len(x.base)/8) {
		return
	}
	changes := make([]entry, 0, len(x.recent))
	for id, at := range x.recent {
		changes = append(changes, entry{id: id, at: at})
	}
	slices.SortFunc(changes, func(a, b entry) int { return compareIDs(a.id, b.id) })
	merged := make([]entry, 0, x.n)
	i, j := 0, 0
	for i < len(x.base) || j < len(changes) {
		var e entry
		switch {
		case j == len(changes) || (i < len(x.base) && compareIDs(x.base[i].id, changes[j].id) < 0):
			e = x.base[i]
			i++
		case i == len(x.base) || compareIDs(changes[j].id, x.base[i].id) < 0:
			e = changes[j]
			j++
		default: // the same id: the change wins
			e = changes[j]
			i++
			j++
		}
		if e.at.seg != 0 {
			merged = append(merged, e)
		}
	}
	x.base = merged
	x.recent = make(map[uuid.UUID]loc) // a cleared map would keep its grown table
}

// compareIDs orders ids as their bytes do, a word at a time.
func compareIDs(a, b uuid.UUID) int {
	if x, y := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8]); x != y {
		if x < y {
			return -1
		}
		return 1
	}
	x, y := binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:])
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
