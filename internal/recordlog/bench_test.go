package recordlog

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/benchutil"
)

// record is about the size of a local create's record (4.6 KB).
var record = append(append([]byte(`{"record":{"pad":"`), bytes.Repeat([]byte("x"), 4600)...), `"}}`...)

// BenchmarkPut: records written by 16 concurrent creates, as the local
// create path does, against one durable document each (certmagic's
// file_system Store, how records were kept before the journal).
func BenchmarkPut(b *testing.B) {
	b.Run("journal", func(b *testing.B) {
		l, err := Open(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = l.Close() })
		defer benchutil.CPUPerOp(b)()
		b.SetParallelism(8) // 16 goroutines on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Put(uuid.New(), record); err != nil {
					b.Error(err)
				}
			}
		})
	})
	b.Run("one document each", func(b *testing.B) {
		storage := &certmagic.FileStorage{Path: b.TempDir()}
		defer benchutil.CPUPerOp(b)()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := storage.Store(context.Background(), "records/"+uuid.NewString()+".json", record); err != nil {
					b.Error(err)
				}
			}
		})
	})
}

// BenchmarkGet: the read every accept and short URL makes.
func BenchmarkGet(b *testing.B) {
	l, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close() })
	ids := make([]uuid.UUID, 1000)
	for i := range ids {
		ids[i] = uuid.New()
		if err := l.Put(ids[i], record); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, ok, err := l.Get(ids[i%len(ids)]); !ok || err != nil {
			b.Fatal("missing", err)
		}
	}
}

// BenchmarkIndexMemory reports the heap one record's place takes in
// memory (the "B/record" column), at 500,000 records; …Map is what a Go
// map of them took.
func BenchmarkIndexMemory(b *testing.B) {
	heapPerRecord(b, func(ids []uuid.UUID) any {
		index := newIndex()
		for i, id := range ids {
			index.set(id, loc{seg: 1, n: 4600, ver: 1, off: uint32(i)})
		}
		return index
	})
}

func BenchmarkIndexMemoryMap(b *testing.B) {
	heapPerRecord(b, func(ids []uuid.UUID) any {
		index := make(map[uuid.UUID]loc)
		for i, id := range ids {
			index[id] = loc{seg: 1, n: 4600, ver: 1, off: uint32(i)}
		}
		return index
	})
}

// heapPerRecord reports the heap what fill builds holds per id.
func heapPerRecord(b *testing.B, fill func([]uuid.UUID) any) {
	const n = 500000
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = uuid.New()
	}
	var perRecord float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		built := fill(ids)
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRecord = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(built)
	}
	b.ReportMetric(perRecord, "B/record")
}

// BenchmarkIndexGet: finding a record's place among 500,000.
func BenchmarkIndexGet(b *testing.B) {
	x := newIndex()
	ids := make([]uuid.UUID, 500000)
	for i := range ids {
		ids[i] = uuid.New()
		x.set(ids[i], loc{seg: 1, n: 1, ver: 1})
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, ok := x.get(ids[i%len(ids)]); !ok {
			b.Fatal("missing")
		}
	}
}
