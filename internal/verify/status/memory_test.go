package status

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
)

// One presentation may carry max_credentials (10) credentials of 4 status
// entries each, all self-issued when trusted_issuers is unset (the
// default), each naming a list of its own: 40 lists, each a few KiB of
// GZIP that inflate to MaxBits (4 MiB). The cache keeps them all (up to
// CacheSize, 200: 800 MiB) for CacheTTL. The memory the cache holds must
// be bounded by something far below that.
func TestStatusListCacheMemoryBounded(t *testing.T) {
	const issuer = "did:key:attacker"
	body := listVC(issuer, "BitstringStatusList", "revocation", encodeList(t, nil, 1<<25, true))
	var sent atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := fmt.Fprint(w, body)
		sent.Add(int64(n))
	}))
	defer srv.Close()
	c := New(Options{Client: srv.Client()}, plainLists{})

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for cred := 0; cred < 10; cred++ {
		var entries []any
		for i := 0; i < MaxEntries; i++ {
			entries = append(entries, map[string]any{"type": BitstringStatusListEntry, "statusPurpose": "revocation",
				"statusListIndex": "1", "statusListCredential": fmt.Sprintf("%s/list?c=%d&e=%d", srv.URL, cred, i)})
		}
		if r := c.Check(context.Background(), entries, issuer); r.Outcome != OK {
			t.Fatalf("%+v", r)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("one presentation's worth of lists: %d KiB downloaded, %d MiB held by the cache (%d entries)", sent.Load()>>10, held>>20, c.cache.Len())
	if held > 64<<20 {
		t.Fatalf("the status list cache holds %d MiB after one presentation (%d KiB downloaded); at CacheSize 200 it would hold ~800 MiB", held>>20, sent.Load()>>10)
	}
	runtime.KeepAlive(c)
}
