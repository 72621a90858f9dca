package shorturl

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// FuzzResolve: any id from a URL path resolves to nothing (ErrNotFound)
// unless it is the id of a stored URL, and never reaches another document.
func FuzzResolve(f *testing.F) {
	ctx := context.Background()
	svc := New(store.New(&certmagic.FileStorage{Path: f.TempDir()}, "shorturls"), time.Hour)
	inv := json.RawMessage(`{"@id":"x"}`)
	id, _, err := svc.Create(ctx, "org", "https://v.example?oob=x", inv)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{id, id[:15], id + "A", "................", "../shorturls/aaa", "%2e%2e%2fAAAAAAAA", "", "AAAAAAAAAAAAAAA="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := svc.Resolve(ctx, s)
		if s == id {
			if err != nil || string(e.Invitation) != string(inv) {
				t.Fatalf("the stored id does not resolve: %v", err)
			}
			return
		}
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("Resolve(%q) = %+v, %v; want ErrNotFound", s, e, err)
		}
	})
}
