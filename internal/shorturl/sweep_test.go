package shorturl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

func TestSweepDeletesExpired(t *testing.T) {
	ctx := context.Background()
	st := store.New(&certmagic.FileStorage{Path: t.TempDir()}, "shorturls")
	svc := New(st, time.Hour)
	old, _, err := svc.Create(ctx, "org", "https://v.example/?oob=x", nil)
	if err != nil {
		t.Fatal(err)
	}
	svc.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	fresh, _, _ := svc.Create(ctx, "org", "https://v.example/?oob=y", nil)
	got, err := svc.SweepTask().Run(ctx, svc.now(), 100)
	if err != nil || got["short_urls"] != 1 {
		t.Fatalf("sweep: %v, %v", got, err)
	}
	var e Entry
	if err := st.Get(ctx, old, &e); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired short URL kept: %v", err)
	}
	if _, err := svc.Resolve(ctx, fresh); err != nil {
		t.Fatalf("fresh short URL: %v", err)
	}
}
