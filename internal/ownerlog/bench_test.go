package ownerlog

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/certmagic"
)

// BenchmarkAppend: owners remembered by 16 concurrent creates, as the
// upstream create path does, against one durable write each
// (certmagic's file_system Store, what Remember did before the log).
func BenchmarkAppend(b *testing.B) {
	var n atomic.Int64
	id := func() string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n.Add(1)) }
	b.Run("log file_system", func(b *testing.B) {
		l := open(&certmagic.FileStorage{Path: b.TempDir()}, testDir, nil)
		b.Cleanup(func() { _ = l.Destruct() })
		b.SetParallelism(8) // 16 goroutines on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Append(Entry{ID: id(), OrgID: "org"}); err != nil {
					b.Error(err)
				}
			}
		})
	})
	b.Run("log batch documents", func(b *testing.B) {
		l := open(plainStorage{&certmagic.FileStorage{Path: b.TempDir()}}, testDir, nil)
		b.Cleanup(func() { _ = l.Destruct() })
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Append(Entry{ID: id(), OrgID: "org"}); err != nil {
					b.Error(err)
				}
			}
		})
	})
	b.Run("one document each", func(b *testing.B) {
		storage := &certmagic.FileStorage{Path: b.TempDir()}
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := storage.Store(context.Background(), testDir+"/"+id()+".json", []byte(`{"orgId":"org"}`)); err != nil {
					b.Error(err)
				}
			}
		})
	})
}

// BenchmarkGet: the lookup every accept makes.
func BenchmarkGet(b *testing.B) {
	x := newIndex()
	ids := make([]string, 100000)
	for i := range ids {
		ids[i] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		x.add([]Entry{{ID: ids[i], OrgID: "org"}}, nil)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, ok := x.get(ids[i%len(ids)]); !ok {
			b.Fatal("missing")
		}
	}
}

// BenchmarkClaim: what insert-only costs a create on top of its share of
// the write (claim, then release once the batch is in memory), against an
// index of 100000 owners.
func BenchmarkClaim(b *testing.B) {
	x := newIndex()
	for i := range 100000 {
		x.add([]Entry{{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), OrgID: "org"}}, nil)
	}
	ids := make([]Entry, 100000)
	for i := range ids {
		ids[i].ID = fmt.Sprintf("00000000-0000-4000-9000-%012d", i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e := ids[i%len(ids) : i%len(ids)+1]
		if !x.claim(e[0].ID) {
			b.Fatal("refused")
		}
		x.release(e)
	}
}
