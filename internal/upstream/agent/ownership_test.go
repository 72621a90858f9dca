package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
)

// TestOwnership: an owner remembered is answered from memory, survives
// the last release (a restart reads it from the log), and Forget undoes it
// for good.
func TestOwnership(t *testing.T) {
	dir := t.TempDir()
	storage := &certmagic.FileStorage{Path: dir}
	ctx := context.Background()
	o := NewOwnership(storage, "credo http://agent", 0, nil)
	id := "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	if err := o.Remember(ctx, id, backend.Org{ID: "org-a"}, "thread", backend.RequestIndy); err != nil {
		t.Fatal(err)
	}
	if docs, _ := filepath.Glob(filepath.Join(dir, "proofgate", OwnershipNamespace, "log", "a*.jsonl")); len(docs) != 1 {
		t.Fatalf("log documents after one create: %v", docs)
	}
	if org, err := o.OrgOf(ctx, id); err != nil || org != "org-a" {
		t.Fatalf("OrgOf = %q, %v", org, err)
	}
	o.Close()

	restarted := NewOwnership(storage, "credo http://agent", 0, nil)
	defer restarted.Close()
	if org, err := restarted.OrgOf(ctx, id); err != nil || org != "org-a" {
		t.Fatalf("OrgOf after a restart = %q, %v", org, err)
	}
	if ok, err := restarted.OwnedBy(ctx, backend.Org{ID: "org-b"}, id, func() (bool, error) {
		t.Error("the agent was asked about a remembered record")
		return true, nil
	}); err != nil || ok {
		t.Fatalf("OwnedBy another org = %v, %v", ok, err)
	}
	if err := restarted.Forget(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := restarted.OrgOf(ctx, id); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("OrgOf after Forget = %v, want ErrNotFound", err)
	}
}

// TestOwnershipEarlierDocuments: a per-record document written by an
// earlier version still authorizes its record; an unknown record is asked
// of the agent.
func TestOwnershipEarlierDocuments(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	id := "9b2d7b0e-2f5c-4c8a-9d5e-2b1f3c4d5e6f"
	doc := filepath.Join(dir, "proofgate", OwnershipNamespace, id+".json")
	if err := os.MkdirAll(filepath.Dir(doc), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, []byte(`{"orgId":"org-old","agent":"credo http://agent","createdAt":"2026-01-02T03:04:05.000Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewOwnership(&certmagic.FileStorage{Path: dir}, "credo http://agent", 0, nil)
	defer o.Close()
	if org, err := o.OrgOf(ctx, id); err != nil || org != "org-old" {
		t.Fatalf("OrgOf of an earlier document = %q, %v", org, err)
	}
	asked := false
	ok, err := o.OwnedBy(ctx, backend.Org{ID: "org-a"}, "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21", func() (bool, error) {
		asked = true
		return true, nil
	})
	if err != nil || !ok || !asked {
		t.Fatalf("OwnedBy of an unknown record = %v, %v (agent asked: %v)", ok, err, asked)
	}
}

// TestOwnershipRetention: past owner_retention a record's owner is
// forgotten, so its accept is authorized as for a record made on the agent
// directly (the agent is asked); a recent one is answered from memory. The
// longest retention of the backends sharing the storage applies.
func TestOwnershipRetention(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	storage := &certmagic.FileStorage{Path: dir}
	old := "9b2d7b0e-2f5c-4c8a-9d5e-2b1f3c4d5e6f"
	doc := filepath.Join(dir, "proofgate", OwnershipNamespace, old+".json")
	if err := os.MkdirAll(filepath.Dir(doc), 0o700); err != nil {
		t.Fatal(err)
	}
	created := time.Now().UTC().Add(-3 * time.Hour).Format(backend.TimeFormat)
	if err := os.WriteFile(doc, []byte(`{"orgId":"org-a","agent":"credo http://agent","createdAt":"`+created+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewOwnership(storage, "credo http://agent", 2*time.Hour, nil)
	defer o.Close()
	recent := "5c0b6a52-3c59-4b0e-8d0a-0e8b2f3b7f21"
	if err := o.Remember(ctx, recent, backend.Org{ID: "org-a"}, "thread", backend.RequestIndy); err != nil {
		t.Fatal(err)
	}
	if org, err := o.OrgOf(ctx, recent); err != nil || org != "org-a" {
		t.Fatalf("OrgOf of a recent record = %q, %v", org, err)
	}
	if _, err := o.OrgOf(ctx, old); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("OrgOf of a record past the retention = %v, want ErrNotFound", err)
	}
	asked := false
	ok, err := o.OwnedBy(ctx, backend.Org{ID: "org-b"}, old, func() (bool, error) {
		asked = true
		return false, nil
	})
	if err != nil || ok || !asked {
		t.Fatalf("OwnedBy past the retention = %v, %v (agent asked: %v)", ok, err, asked)
	}
	// Another backend on the storage keeps every owner: so does the log.
	keeper := NewOwnership(storage, "acapy http://agent", 0, nil)
	if org, err := o.OrgOf(ctx, old); err != nil || org != "org-a" {
		t.Fatalf("OrgOf while a backend keeps every owner = %q, %v", org, err)
	}
	keeper.Close()
}

// brokenStorage fails everything.
type brokenStorage struct{ certmagic.Storage }

func (brokenStorage) Store(context.Context, string, []byte) error { return errors.New("disk gone") }
func (brokenStorage) Load(context.Context, string) ([]byte, error) {
	return nil, errors.New("disk gone")
}
func (brokenStorage) List(context.Context, string, bool) ([]string, error) {
	return nil, errors.New("disk gone")
}
func (brokenStorage) Stat(context.Context, string) (certmagic.KeyInfo, error) {
	return certmagic.KeyInfo{}, errors.New("disk gone")
}

// TestOwnershipStorageFails: a failing storage is ErrUnavailable (503),
// never a wrong answer.
func TestOwnershipStorageFails(t *testing.T) {
	ctx := context.Background()
	o := NewOwnership(brokenStorage{}, "credo http://agent", 0, nil)
	defer o.Close()
	if err := o.Remember(ctx, "3fa85f64-5717-4562-b3fc-2c963f66afa6", backend.Org{ID: "a"}, "", backend.RequestIndy); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Remember = %v, want ErrUnavailable", err)
	}
	if _, err := o.OrgOf(ctx, "3fa85f64-5717-4562-b3fc-2c963f66afa6"); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("OrgOf = %v, want ErrUnavailable", err)
	}
}
