package registry

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// paddedSource answers every schema id with one real schema document,
// padded with whitespace to size bytes, counting its fetches.
type paddedSource struct {
	doc     []byte
	fetches atomic.Int32
}

func (s *paddedSource) Fetch(_ context.Context, _ Kind, _ string) ([]byte, error) {
	s.fetches.Add(1)
	return s.doc, nil
}

func (s *paddedSource) Name() string { return "padded" }

// TestCacheBoundedByBytes: schema and definition ids come from
// presentations, and a source may answer each with up to a MiB; the cache
// holds documents up to cacheBudget bytes together, not maxEntries of
// them, dropping the oldest first.
func TestCacheBoundedByBytes(t *testing.T) {
	schemas, _ := corpusDocs(t)
	var doc []byte
	for _, d := range schemas {
		doc = d
		break
	}
	const size = 1 << 20
	src := &paddedSource{doc: append(bytes.Clone(doc), bytes.Repeat([]byte(" "), size-len(doc))...)}
	r := New(time.Hour, src)
	ctx := context.Background()
	ids := make([]string, cacheBudget/size+8)
	for i := range ids {
		ids[i] = "schema-" + string(rune('A'+i/26)) + string(rune('a'+i%26))
		if _, err := r.Schema(ctx, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	if n := int(src.fetches.Load()); n != len(ids) {
		t.Fatalf("%d fetches for %d ids", n, len(ids))
	}
	// The newest is held, the oldest went for the budget.
	if _, err := r.Schema(ctx, ids[len(ids)-1]); err != nil || src.fetches.Load() != int32(len(ids)) {
		t.Errorf("the newest document was fetched again (%v)", err)
	}
	if _, err := r.Schema(ctx, ids[0]); err != nil || src.fetches.Load() != int32(len(ids))+1 {
		t.Errorf("the oldest of %d MiB of documents is still held with a budget of %d MiB", len(ids), cacheBudget>>20)
	}
}
