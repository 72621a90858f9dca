package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
)

// TestOwnershipCache: an owner just remembered (or read once) is answered
// from memory; Forget drops it from memory and storage; a fresh Ownership
// over the same storage reads storage.
func TestOwnershipCache(t *testing.T) {
	dir := t.TempDir()
	storage := &certmagic.FileStorage{Path: dir}
	ctx := context.Background()
	o := NewOwnership(storage, "credo http://agent")
	id := "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	if err := o.Remember(ctx, id, backend.Org{ID: "org-a"}, "thread"); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "proofgate", OwnershipNamespace, id+".json")
	saved, err := os.ReadFile(doc)
	if err != nil {
		t.Fatalf("the owner is not in storage: %v", err)
	}
	// Gone from storage: the cache still answers.
	if err := os.Remove(doc); err != nil {
		t.Fatal(err)
	}
	if org, err := o.OrgOf(ctx, id); err != nil || org != "org-a" {
		t.Fatalf("cached OrgOf = %q, %v", org, err)
	}
	// Another instance (a reload, another node) reads storage.
	other := NewOwnership(storage, "credo http://agent")
	if _, err := other.OrgOf(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("fresh OrgOf without the document = %v, want ErrNotFound", err)
	}
	if err := os.WriteFile(doc, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if org, err := other.OrgOf(ctx, id); err != nil || org != "org-a" {
		t.Fatalf("fresh OrgOf = %q, %v", org, err)
	}
	if err := o.Forget(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := o.OrgOf(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("OrgOf after Forget = %v, want ErrNotFound", err)
	}
}

// TestOwnerCacheBounded: the cache never holds more than ownerCacheSize
// owners, and evicts the oldest first.
func TestOwnerCacheBounded(t *testing.T) {
	o := NewOwnership(&certmagic.FileStorage{Path: t.TempDir()}, "credo http://agent")
	for i := range ownerCacheSize + 100 {
		o.cache.Put(fmt.Sprint(i), Owner{OrgID: "o"})
	}
	if n := o.cache.Len(); n != ownerCacheSize {
		t.Fatalf("%d entries, want %d", n, ownerCacheSize)
	}
	if _, ok := o.cache.Peek("0"); ok {
		t.Error("the oldest entry survived")
	}
	if _, ok := o.cache.Peek(fmt.Sprint(ownerCacheSize + 99)); !ok {
		t.Error("the newest entry is missing")
	}
}
