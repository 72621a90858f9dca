package proofs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
)

func (f *failingStorage) Store(ctx context.Context, key string, value []byte) error {
	if strings.HasPrefix(key, "proofgate/records/") {
		if f.afterWrite {
			if err := f.FileStorage.Store(ctx, key, value); err != nil {
				return err
			}
		}
		return errDiskFull
	}
	return f.FileStorage.Store(ctx, key, value)
}

func TestCreateFailureLeavesNoRecord(t *testing.T) {
	for _, afterWrite := range []bool{false, true} {
		for _, reuse := range []bool{true, false} {
			ctx := context.Background()
			dir := t.TempDir()
			st := &failingStorage{FileStorage: &certmagic.FileStorage{Path: dir}, afterWrite: afterWrite}
			s := newTestService(t, st)
			req := indyRequest()
			req.ReuseConnection = reuse
			_, err := s.Create(ctx, testOrg, req)
			if !errors.Is(err, backend.ErrUnavailable) || !errors.Is(err, errDiskFull) {
				t.Fatalf("afterWrite=%v reuse=%v: %v", afterWrite, reuse, err)
			}
			entries, err := os.ReadDir(filepath.Join(dir, "proofgate", "records"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Fatalf("afterWrite=%v reuse=%v: records left behind: %v", afterWrite, reuse, entries)
			}
		}
	}
}

// documentStorage is file storage that is not *certmagic.FileStorage, so
// records are kept as per-record documents (as with any other storage
// module), not in the record journal.
type documentStorage struct{ *certmagic.FileStorage }

func TestTransitionWriteFailureKeepsState(t *testing.T) {
	ctx := context.Background()
	st := &failingStorage{FileStorage: fileStorage(t)}
	good := newTestService(t, documentStorage{st.FileStorage})
	res, err := good.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := good.MarkPresentationReceived(ctx, res.ProofRecord.ID, Presentation{SignaturesVerified: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := newTestService(t, st).Accept(ctx, testOrg, res.ProofRecord.ID); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("accept with failing storage: %v", err)
	}
	rec, err := good.LoadRecord(ctx, res.ProofRecord.ID)
	if err != nil || rec.State != backend.StatePresentationReceived {
		t.Fatalf("after failed accept: %+v, %v", rec, err)
	}
}
