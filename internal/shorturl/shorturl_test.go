package shorturl

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/testenv/storagetest"
)

func TestCreateResolveExpire(t *testing.T) {
	ctx := context.Background()
	fs := &certmagic.FileStorage{Path: t.TempDir()}
	svc := New(store.New(fs, "shorturls"), time.Hour)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	svc.now = func() time.Time { return now }

	inv := json.RawMessage(`{"@id":"x"}`)
	id, exp, err := svc.Create(ctx, "org1", "https://v.example?oob=abc", inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 16 || !exp.Equal(now.Add(time.Hour)) {
		t.Fatalf("id %q expiry %v", id, exp)
	}
	// A second service on the same storage (a restart) sees it.
	other := New(store.New(fs, "shorturls"), time.Hour)
	other.now = svc.now
	e, err := other.Resolve(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.LongURL != "https://v.example?oob=abc" || string(e.Invitation) != `{"@id":"x"}` || e.OrgID != "org1" {
		t.Fatalf("entry %+v", e)
	}

	for _, bad := range []string{"", "short", "../../../etc/passwd", id + "x"} {
		if _, err := svc.Resolve(ctx, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) = %v, want ErrNotFound", bad, err)
		}
	}

	now = now.Add(time.Hour)
	if _, err := svc.Resolve(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired: %v", err)
	}
	if exists := fs.Exists(ctx, "proofgate/shorturls/"+id+".json"); exists {
		t.Fatal("expired entry was not deleted")
	}
}

// Only ids of the shape made here (16 base64url characters) cost a
// storage read: a '.' (which storage names allow) or a '+' does not.
func TestResolveReadsOnlyIDsItMakes(t *testing.T) {
	st := &storagetest.CountingLoads{Storage: &certmagic.FileStorage{Path: t.TempDir()}}
	svc := New(store.New(st, "shorturls"), time.Hour)
	for _, id := range []string{"abcdefgh.jklmnop", "abcdefgh+jklmnop", "abcdefghijklmno", "abcdefghijklmnopq"} {
		if _, err := svc.Resolve(context.Background(), id); !errors.Is(err, ErrNotFound) {
			t.Errorf("%q: %v, want ErrNotFound", id, err)
		}
	}
	if st.Loads() != 0 {
		t.Errorf("%d storage reads for ids never made", st.Loads())
	}
	if _, err := svc.Resolve(context.Background(), "abcdefgh_jklmnop"); !errors.Is(err, ErrNotFound) || st.Loads() != 1 {
		t.Errorf("an id of the right shape: %v after %d reads, want one read and ErrNotFound", err, st.Loads())
	}
}
