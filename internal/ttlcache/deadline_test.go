package ttlcache

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A fetch cut short by one caller's deadline must not become the remembered
// failure every later caller gets for negTTL: the next caller, with all the
// time it needs, must get a fetch of its own.
func TestCallerDeadlineFailureNotRemembered(t *testing.T) {
	c := New[string](10, time.Minute, 30*time.Second)
	slowThenOK := func(ctx context.Context) (string, error) {
		select {
		case <-ctx.Done():
			return "", errors.New("timeout") // as status/did flatten it
		case <-time.After(100 * time.Millisecond):
			return "fresh", nil
		}
	}
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.Get(short, "k", slowThenOK); err == nil {
		t.Fatal("the short caller got a value")
	}
	time.Sleep(150 * time.Millisecond) // the first fetch is over
	v, err := c.Get(context.Background(), "k", slowThenOK)
	if err != nil || v != "fresh" {
		t.Fatalf("a patient caller got %q, %v: the impatient caller's deadline failure was cached for everyone", v, err)
	}
}

// A caller that joins a fetch another caller started must not inherit that
// caller's (shorter) deadline.
func TestJoinedCallerNotBoundByFirstCallersDeadline(t *testing.T) {
	c := New[string](10, time.Minute, 0)
	fetch := func(ctx context.Context) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
			return "fresh", nil
		}
	}
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	go c.Get(short, "k", fetch)
	time.Sleep(2 * time.Millisecond)
	v, err := c.Get(context.Background(), "k", fetch)
	if err != nil || v != "fresh" {
		t.Fatalf("a caller without deadline got %q, %v from the fetch of a caller with a 10ms deadline", v, err)
	}
}
