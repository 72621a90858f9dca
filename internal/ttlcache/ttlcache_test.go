package ttlcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCacheTTLSizeAndNegative(t *testing.T) {
	now := time.Unix(1000, 0)
	c := New[string](2, time.Minute, 10*time.Second)
	c.SetClock(func() time.Time { return now })
	var calls atomic.Int32
	fetch := func(v string, err error) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { calls.Add(1); return v, err }
	}
	ctx := context.Background()
	if v, _ := c.Get(ctx, "a", fetch("A", nil)); v != "A" {
		t.Fatal(v)
	}
	if v, _ := c.Get(ctx, "a", fetch("other", nil)); v != "A" || calls.Load() != 1 {
		t.Fatalf("cached value not used: %q after %d fetches", v, calls.Load())
	}
	now = now.Add(61 * time.Second)
	if v, _ := c.Get(ctx, "a", fetch("A2", nil)); v != "A2" {
		t.Fatalf("expired value served: %q", v)
	}
	boom := errors.New("down")
	if _, err := c.Get(ctx, "b", fetch("", boom)); err != boom {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "b", fetch("B", nil)); err != boom {
		t.Fatalf("negative entry not kept: %v", err)
	}
	now = now.Add(11 * time.Second)
	if v, err := c.Get(ctx, "b", fetch("B", nil)); err != nil || v != "B" {
		t.Fatalf("negative entry outlived its ttl: %q %v", v, err)
	}
	for i := 0; i < 10; i++ {
		c.Get(ctx, fmt.Sprint(i), fetch("x", nil))
	}
	if c.Len() != 2 {
		t.Fatalf("cache holds %d entries, want at most 2", c.Len())
	}
}

func TestCacheOneFetchForConcurrentCallers(t *testing.T) {
	c := New[int](10, time.Minute, 0)
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
				calls.Add(1)
				<-release
				return 7, nil
			})
			if err != nil || v != 7 {
				t.Errorf("got %d %v", v, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("%d fetches, want 1", calls.Load())
	}
}

func TestCacheCallerGivesUp(t *testing.T) {
	c := New[int](10, time.Minute, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Get(ctx, "k", func(context.Context) (int, error) { time.Sleep(10 * time.Millisecond); return 1, nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

func TestCachePeekPutDelete(t *testing.T) {
	now := time.Unix(1000, 0)
	c := New[int](2, time.Minute, time.Minute)
	c.SetClock(func() time.Time { return now })
	if _, ok := c.Peek("a"); ok {
		t.Fatal("Peek found a key never put")
	}
	c.Put("a", 1)
	if v, ok := c.Peek("a"); !ok || v != 1 {
		t.Fatalf("Peek = %d, %v after Put", v, ok)
	}
	c.Delete("a")
	if _, ok := c.Peek("a"); ok {
		t.Fatal("Peek found a deleted key")
	}
	c.Delete("never there")
	c.Put("b", 2)
	now = now.Add(61 * time.Second)
	if _, ok := c.Peek("b"); ok {
		t.Fatal("Peek served an expired entry")
	}
	if _, err := c.Get(context.Background(), "c", func(context.Context) (int, error) { return 0, errors.New("down") }); err == nil {
		t.Fatal("fetch error not returned")
	}
	if _, ok := c.Peek("c"); ok {
		t.Fatal("Peek served a remembered failure as a value")
	}
	for i := 0; i < 5; i++ {
		c.Put(fmt.Sprint(i), i)
	}
	if c.Len() != 2 {
		t.Fatalf("cache holds %d entries, want at most 2", c.Len())
	}
}
