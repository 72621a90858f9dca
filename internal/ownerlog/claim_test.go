package ownerlog

import (
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

// TestAppendIsInsertOnly: a create remembers an id no one holds. An id
// held by an org (another or the same), forgotten, or being remembered by
// a create still in flight is refused with ErrTaken, and its owner stays
// what it was.
func TestAppendIsInsertOnly(t *testing.T) {
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) {
			storage := sinks(t.TempDir())[name]
			l := opened(t, storage)
			held, forgotten, heldOther := uuidN(1), uuidN(2), "rec-1"
			for _, id := range []string{held, forgotten, heldOther} {
				if err := l.Append(Entry{ID: id, OrgID: "org-b"}); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Forget(forgotten); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name string
				e    Entry
			}{
				{"held by another org", Entry{ID: held, OrgID: "org-a"}},
				{"held by the same org", Entry{ID: held, OrgID: "org-b"}},
				{"forgotten", Entry{ID: forgotten, OrgID: "org-a"}},
				{"held, not a UUID", Entry{ID: heldOther, OrgID: "org-a"}},
			} {
				if err := l.Append(tc.e); !errors.Is(err, ErrTaken) {
					t.Errorf("%s: Append = %v, want ErrTaken", tc.name, err)
				}
				if _, err := l.Start(tc.e); !errors.Is(err, ErrTaken) {
					t.Errorf("%s: Start = %v, want ErrTaken", tc.name, err)
				}
			}
			for _, lg := range []*Log{l, opened(t, storage)} {
				if org, ok := lg.Get(held); !ok || org != "org-b" {
					t.Errorf("owner of the held id: %q, %v; want org-b", org, ok)
				}
				if _, ok := lg.Get(forgotten); ok {
					t.Error("the forgotten id is found again")
				}
			}
		})
	}
}

// TestStartClaimsTheID: while one create's owner is being written, a
// second create of the same id is refused; a write that fails gives the
// id up again.
func TestStartClaimsTheID(t *testing.T) {
	storage := &gatedStorage{Storage: &failingStorage{Storage: &certmagic.FileStorage{Path: t.TempDir()}, fail: true},
		entered: make(chan struct{}), release: make(chan struct{})}
	l := opened(t, plainStorage{storage})
	id := uuidN(7)
	first, err := l.Start(Entry{ID: id, OrgID: "org-a"})
	if err != nil {
		t.Fatal(err)
	}
	<-storage.entered
	if _, err := l.Start(Entry{ID: id, OrgID: "org-b"}); !errors.Is(err, ErrTaken) {
		t.Fatalf("a second create of an id being written: %v, want ErrTaken", err)
	}
	close(storage.release)
	if err := first.Wait(); err == nil {
		t.Fatal("the write succeeded on failing storage")
	}
	fs := storage.Storage.(*failingStorage)
	fs.mu.Lock()
	fs.fail = false
	fs.mu.Unlock()
	if err := l.Append(Entry{ID: id, OrgID: "org-b"}); err != nil {
		t.Fatalf("the id of a failed write stays claimed: %v", err)
	}
	if org, ok := l.Get(id); !ok || org != "org-b" {
		t.Fatalf("Get = %q, %v; want org-b", org, ok)
	}
}

// TestEarliestOwnerWins: two instances sharing a storage each check only
// what they have read, so both may write an owner of one id. Every reader
// keeps the earlier created one, whatever the order it reads them in.
func TestEarliestOwnerWins(t *testing.T) {
	first := Entry{ID: uuidN(3), OrgID: "org-a", CreatedAt: time.Unix(1_800_000_000, 0).UTC().Format(time.RFC3339)}
	later := Entry{ID: uuidN(3), OrgID: "org-b", CreatedAt: time.Unix(1_800_000_060, 0).UTC().Format(time.RFC3339)}
	for name, order := range map[string][]Entry{"earlier first": {first, later}, "later first": {later, first}} {
		x := newIndex()
		for _, e := range order {
			x.add([]Entry{e}, nil)
		}
		if org, ok := x.get(first.ID); !ok || org != "org-a" {
			t.Errorf("%s: owner %q, %v; want org-a", name, org, ok)
		}
	}
}
