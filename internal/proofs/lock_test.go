package proofs

import (
	"context"
	"testing"
	"time"
)

// A keyedMutex serializes one key, lets another through, gives up a wait
// at its limit or when its context ends, and forgets every key nobody
// holds or awaits.
func TestKeyedMutex(t *testing.T) {
	var k keyedMutex
	unlock := k.lock("a")
	if u, ok := k.lockWithin(context.Background(), "b", time.Millisecond); !ok {
		t.Fatal("another key waited")
	} else {
		u()
	}
	if _, ok := k.lockWithin(context.Background(), "a", 10*time.Millisecond); ok {
		t.Fatal("a held key was taken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := k.lockWithin(ctx, "a", time.Hour); ok {
		t.Fatal("a held key was taken with the context ended")
	}
	got := make(chan func())
	go func() {
		u, ok := k.lockWithin(context.Background(), "a", time.Hour)
		if !ok {
			t.Error("the wait gave up")
		}
		got <- u
	}()
	unlock()
	(<-got)()
	if len(k.m) != 0 {
		t.Fatalf("%d keys kept with nobody holding them", len(k.m))
	}
}
