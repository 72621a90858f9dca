package ownerlog

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"time"
)

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// TestRetentionOfHolders: the longest retention of the holders applies,
// and none while any holder keeps every record.
func TestRetentionOfHolders(t *testing.T) {
	l := open(plainStorage{sinks(t.TempDir())["append file"]}, testDir, nil)
	defer l.Destruct()
	steps := []struct {
		hold, unhold time.Duration
		hasHold      bool
		want         time.Duration
	}{
		{hold: 3 * time.Hour, hasHold: true, want: 3 * time.Hour},
		{hold: 0, hasHold: true, want: 0},
		{hold: 5 * time.Hour, hasHold: true, want: 0},
		{unhold: 0, want: 5 * time.Hour},
		{unhold: 5 * time.Hour, want: 3 * time.Hour},
		{unhold: 3 * time.Hour, want: 0},
	}
	for i, s := range steps {
		if s.hasHold {
			l.hold(s.hold)
		} else {
			l.unhold(s.unhold)
		}
		if got := l.Retention(); got != s.want {
			t.Fatalf("step %d: retention %v, want %v", i, got, s.want)
		}
	}
}

// TestExpiredNotFound: with a retention, a record created longer ago is
// neither found nor taken into memory, before any Expire pass; without
// one it is kept.
func TestExpiredNotFound(t *testing.T) {
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) {
			storage := sinks(t.TempDir())[name]
			l := opened(t, storage)
			defer l.Destruct()
			old := Entry{ID: uuidN(1), OrgID: "org-a", CreatedAt: stamp(time.Now().Add(-3 * time.Hour))}
			if err := l.Append(old); err != nil {
				t.Fatal(err)
			}
			if _, ok := l.Get(old.ID); !ok {
				t.Fatal("without a retention a record is kept")
			}
			l.hold(2 * time.Hour)
			if _, ok := l.Get(old.ID); ok {
				t.Fatal("a record past the retention was found")
			}
			if l.Adopt(Entry{ID: uuidN(2), OrgID: "org-a", CreatedAt: old.CreatedAt}) {
				t.Fatal("an expired legacy record was adopted")
			}
			if !l.Adopt(Entry{ID: uuidN(3), OrgID: "org-a", CreatedAt: stamp(time.Now())}) {
				t.Fatal("a recent legacy record was not adopted")
			}
			// A reading of storage leaves it out of memory.
			again := open(storage, testDir, nil, 2*time.Hour)
			defer again.Destruct()
			if err := again.Refresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			if again.Len() != 0 {
				t.Fatalf("%d records read into memory, want 0", again.Len())
			}
		})
	}
}

// TestExpire: a pass removes from memory the records past the retention,
// keeps the others, and deletes the documents whose records all are; a
// start over the storage then finds nothing of them.
func TestExpire(t *testing.T) {
	for name := range sinks("") {
		t.Run(name, func(t *testing.T) {
			storage := sinks(t.TempDir())[name]
			ctx := context.Background()
			l := opened(t, storage)
			defer l.Destruct()
			l.hold(2 * time.Hour)
			now := time.Now()
			older := Entry{ID: uuidN(1), OrgID: "org-a", CreatedAt: stamp(now.Add(-time.Hour))}
			newer := Entry{ID: "not-a-uuid", OrgID: "org-b", CreatedAt: stamp(now)}
			for _, e := range []Entry{older, newer} {
				if err := l.Append(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Forget(uuidN(9)); err != nil {
				t.Fatal(err)
			}
			keys, err := l.list(ctx)
			if err != nil || len(keys) == 0 {
				t.Fatalf("documents %v, %v", keys, err)
			}

			// 90 minutes on: the older is past 2h, its documents not yet.
			records, docs, err := l.Expire(ctx, now.Add(90*time.Minute))
			if err != nil || records != 1 || docs != 0 {
				t.Fatalf("Expire = %d records, %d documents, %v; want 1, 0", records, docs, err)
			}
			if l.Len() != 1 {
				t.Fatalf("%d records in memory, want 1", l.Len())
			}
			if org, ok := l.Get(newer.ID); !ok || org != "org-b" {
				t.Fatalf("the newer record: %q, %v", org, ok)
			}

			// Four hours on: everything, documents included (the append
			// file started a new one meanwhile, as it does every hour).
			if l.appender != nil {
				l.appender.close()
			}
			records, docs, err = l.Expire(ctx, now.Add(4*time.Hour))
			if err != nil || records != 1 || docs != len(keys) {
				t.Fatalf("Expire = %d records, %d documents, %v; want 1, %d", records, docs, err, len(keys))
			}
			if left, err := l.list(ctx); err != nil || len(left) != 0 {
				t.Fatalf("documents left: %v, %v", left, err)
			}
			if l.known(keys[0]) {
				t.Fatal("a deleted document is still noted as read")
			}
			// A later commit starts a new document; nothing old comes back.
			if err := l.Append(Entry{ID: uuidN(4), OrgID: "org-c", CreatedAt: stamp(time.Now())}); err != nil {
				t.Fatal(err)
			}
			restarted := opened(t, storage)
			defer restarted.Destruct()
			if restarted.Len() != 1 {
				t.Fatalf("a start read %d records, want 1", restarted.Len())
			}
			if _, err := storage.Load(ctx, keys[0]); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a deleted document loads: %v", err)
			}
		})
	}
}

// TestExpireWithoutRetention: with every record kept, a pass does nothing.
func TestExpireWithoutRetention(t *testing.T) {
	storage := sinks(t.TempDir())["append file"]
	l := opened(t, storage)
	defer l.Destruct()
	if err := l.Append(Entry{ID: uuidN(1), OrgID: "org-a", CreatedAt: stamp(time.Now().Add(-1000 * time.Hour))}); err != nil {
		t.Fatal(err)
	}
	records, docs, err := l.Expire(context.Background(), time.Now().Add(1000*time.Hour))
	if err != nil || records != 0 || docs != 0 || l.Len() != 1 {
		t.Fatalf("Expire = %d, %d, %v; %d in memory", records, docs, err, l.Len())
	}
}

// TestExpireKeepsCurrentFile: the append file commits go to is never
// deleted, whatever time a pass is given.
func TestExpireKeepsCurrentFile(t *testing.T) {
	storage := sinks(t.TempDir())["append file"]
	l := opened(t, storage)
	defer l.Destruct()
	l.hold(2 * time.Hour)
	if err := l.Append(Entry{ID: uuidN(1), OrgID: "org-a", CreatedAt: stamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	current := l.appender.current()
	if _, docs, err := l.Expire(context.Background(), time.Now().Add(100*time.Hour)); err != nil || docs != 0 {
		t.Fatalf("Expire deleted %d documents, %v", docs, err)
	}
	if _, err := storage.Stat(context.Background(), current); err != nil {
		t.Fatalf("the current file: %v", err)
	}
}

// TestCompactDropsExpired: compaction leaves out the entries past the
// retention, which a new segment would otherwise keep for another
// retention.
func TestCompactDropsExpired(t *testing.T) {
	storage := plainStorage{sinks(t.TempDir())["append file"]}
	l := opened(t, storage)
	defer l.Destruct()
	for i, age := range []time.Duration{3 * time.Hour, time.Hour, 5 * time.Hour, 0} {
		if err := l.Append(Entry{ID: uuidN(i), OrgID: "org-a", CreatedAt: stamp(time.Now().Add(-age))}); err != nil {
			t.Fatal(err)
		}
	}
	l.hold(2 * time.Hour)
	if err := l.compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, segments := documents(t, storage)
	if len(segments) != 1 {
		t.Fatalf("segments %v", segments)
	}
	seg, err := l.read(context.Background(), segments[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(seg.Owners) != 2 || seg.Owners[0].ID != uuidN(1) || seg.Owners[1].ID != uuidN(3) {
		t.Fatalf("segment holds %+v, want records 1 and 3", seg.Owners)
	}
}

// TestExpireKeepsUndatedNames: a document whose name carries no time is
// never taken for old.
func TestExpireKeepsUndatedNames(t *testing.T) {
	ctx := context.Background()
	storage := plainStorage{sinks(t.TempDir())["append file"]}
	l := opened(t, storage)
	defer l.Destruct()
	l.hold(2 * time.Hour)
	for _, key := range []string{testDir + "/bXXXXXXXXXXXXXXXXXXXX-0000.json", testDir + "/aXXXXXXXXXXXXXXXXXXXX-0000.jsonl"} {
		if err := storage.Store(ctx, key, []byte(`{"owners":[]}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, docs, err := l.Expire(ctx, time.Now().Add(100*time.Hour)); err != nil || docs != 0 {
		t.Fatalf("Expire deleted %d documents, %v", docs, err)
	}
}
