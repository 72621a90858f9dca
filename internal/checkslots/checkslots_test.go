package checkslots

import (
	"context"
	"errors"
	"testing"
	"time"
)

// take holds n slots until the test ends and returns their releases.
func take(t *testing.T, n int) []func() {
	t.Helper()
	releases := make([]func(), 0, n)
	for range n {
		release, err := Admit(context.Background())
		if err != nil {
			t.Fatalf("slot %d of %d: %v", len(releases)+1, Max, err)
		}
		releases = append(releases, release)
	}
	t.Cleanup(func() {
		for _, release := range releases {
			release()
		}
	})
	return releases
}

// setWait sets Wait for the test.
func setWait(t *testing.T, d time.Duration) {
	old := Wait
	Wait = d
	t.Cleanup(func() { Wait = old })
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name      string
		taken     int           // slots held by others
		wait      time.Duration // Wait
		cancelled bool          // ctx cancelled before Admit
		want      []error       // what the error must be; none: admitted
		notWant   error         // what it must not be
	}{
		{name: "free slot", wait: time.Hour},
		{name: "last free slot", taken: Max - 1, wait: time.Hour},
		{name: "a free slot is taken even once the caller is gone", wait: time.Hour, cancelled: true},
		// Only the wait can end these: a short one.
		{name: "all taken: busy after the wait", taken: Max, wait: time.Millisecond, want: []error{ErrBusy}, notWant: context.Canceled},
		// Only the cancellation can end this one: the wait is an hour.
		{name: "all taken, caller gone: busy, saying why", taken: Max, wait: time.Hour, cancelled: true, want: []error{ErrBusy, context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setWait(t, tt.wait)
			take(t, tt.taken)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			release, err := Admit(ctx)
			switch {
			case len(tt.want) == 0 && err != nil:
				t.Fatalf("Admit: %v, want a slot", err)
			case len(tt.want) == 0:
				if release == nil {
					t.Fatal("Admit gave a slot without a release")
				}
				release()
			case err == nil:
				t.Fatalf("Admit gave a slot, want %v", tt.want)
			case tt.notWant != nil && errors.Is(err, tt.notWant):
				t.Fatalf("Admit: %v, must not be %v", err, tt.notWant)
			case release != nil:
				t.Fatal("Admit refused, yet gave a release")
			}
			for _, want := range tt.want {
				if !errors.Is(err, want) {
					t.Errorf("Admit: %v, want %v", err, want)
				}
			}
			if n := len(slots); n != tt.taken {
				t.Fatalf("%d slots held after Admit and its release, want the %d others hold", n, tt.taken)
			}
		})
	}
}

// A release frees its slot for the next caller, once: calling it again
// must not free another check's slot.
func TestReleaseFreesOneSlot(t *testing.T) {
	setWait(t, time.Millisecond)
	releases := take(t, Max)
	releases[0]()
	release, err := Admit(context.Background())
	if err != nil {
		t.Fatalf("Admit after a release: %v", err)
	}
	releases[0]() // again: nothing
	if _, err := Admit(context.Background()); !errors.Is(err, ErrBusy) {
		t.Fatalf("Admit after a release called twice: %v, want ErrBusy (the second call freed someone else's slot)", err)
	}
	release()
	if n := len(slots); n != Max-1 {
		t.Fatalf("%d slots held, want %d", n, Max-1)
	}
}
