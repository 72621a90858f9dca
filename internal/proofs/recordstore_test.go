package proofs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/recordlog"
	"github.com/proofgate/proofgate/internal/store"
)

func openService(t *testing.T, storage certmagic.Storage, cluster bool) *Service {
	t.Helper()
	s, err := New(storage, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, ClusterLocks: cluster})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func recordFiles(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "proofgate", "records"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func journalFiles(t *testing.T, root string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(root, JournalDir, "*.jsonl"))
	return m
}

func receiveAndAccept(t *testing.T, s *Service, id string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.MarkPresentationReceived(ctx, id, Presentation{SignaturesVerified: true}); err != nil {
		t.Fatal(err)
	}
	if rec, err := s.Accept(ctx, testOrg, id); err != nil || rec.State != backend.StateDone {
		t.Fatalf("accept: %+v %v", rec, err)
	}
}

// TestRecordsInTheJournal: on file_system storage a single instance keeps
// its records in the journal, not as files of their own, and finds them
// again after a restart.
func TestRecordsInTheJournal(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openService(t, &certmagic.FileStorage{Path: root}, false)
	res, err := s.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	receiveAndAccept(t, s, res.ProofRecord.ID)
	if files := recordFiles(t, root); len(files) != 0 {
		t.Fatalf("per-record documents %v", files)
	}
	if len(journalFiles(t, root)) != 1 {
		t.Fatal("no journal file")
	}
	s.Close()

	again := openService(t, &certmagic.FileStorage{Path: root}, false)
	defer again.Close()
	rec, err := again.LoadRecord(ctx, res.ProofRecord.ID)
	if err != nil || rec.State != backend.StateDone {
		t.Fatalf("after a restart: %+v %v", rec, err)
	}
	// The sweeper finds and deletes it there.
	sweeping, err := New(&certmagic.FileStorage{Path: root}, Config{PublicURL: testPublicURL, Endpoint: testEndpoint,
		RecordRetention: time.Minute, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	defer sweeping.Close()
	counts, err := sweeping.SweepTask().Run(ctx, time.Now().Add(time.Hour), 100)
	if err != nil || counts["records"] != 1 {
		t.Fatalf("sweep: %v %v", counts, err)
	}
	if _, err := again.LoadRecord(ctx, res.ProofRecord.ID); err != backend.ErrNotFound {
		t.Fatalf("after the sweep: %v", err)
	}
}

// TestDocumentsWrittenBeforeTheJournal: records kept as documents (an
// earlier version, or cluster) stay readable, move into the journal when
// they change, and are deleted in both places.
func TestDocumentsWrittenBeforeTheJournal(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	old := openService(t, documentStorage{&certmagic.FileStorage{Path: root}}, false)
	res, err := old.Create(ctx, testOrg, indyRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(recordFiles(t, root)) != 1 {
		t.Fatal("the document was not written")
	}
	s := openService(t, &certmagic.FileStorage{Path: root}, false)
	defer s.Close()
	id := res.ProofRecord.ID
	if rec, err := s.LoadRecord(ctx, id); err != nil || rec.State != backend.StateRequestSent {
		t.Fatalf("a document from before: %+v %v", rec, err)
	}
	names, err := s.records.List(ctx)
	if err != nil || len(names) != 1 || names[0] != id {
		t.Fatalf("list %v %v", names, err)
	}
	receiveAndAccept(t, s, id)
	if !s.journal.Has(mustParse(t, id)) {
		t.Fatal("a changed record must be in the journal")
	}
	if names, _ := s.records.List(ctx); len(names) != 1 {
		t.Fatalf("a record in both places is listed once: %v", names)
	}
	if err := s.records.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if files := recordFiles(t, root); len(files) != 0 {
		t.Fatalf("the document survived the deletion: %v", files)
	}
	if _, err := s.LoadRecord(ctx, id); err != backend.ErrNotFound {
		t.Fatalf("after deletion: %v", err)
	}
}

// TestClusterMovesTheJournalIntoDocuments: an instance started with
// cluster on a storage whose records are in a journal moves them into
// per-record documents first, so that every instance can read them.
func TestClusterMovesTheJournalIntoDocuments(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	single := openService(t, &certmagic.FileStorage{Path: root}, false)
	var ids []string
	for range 3 {
		res, err := single.Create(ctx, testOrg, indyRequest())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ProofRecord.ID)
	}
	receiveAndAccept(t, single, ids[0])

	// While this process keeps the journal open, the move is refused.
	if _, err := New(&certmagic.FileStorage{Path: root}, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, ClusterLocks: true}); err == nil {
		t.Fatal("moving a journal in use must fail")
	}
	single.Close()

	cluster := openService(t, &certmagic.FileStorage{Path: root}, true)
	if got := len(recordFiles(t, root)); got != 3 {
		t.Fatalf("%d documents, want 3", got)
	}
	if files := journalFiles(t, root); len(files) != 0 {
		t.Fatalf("journal files left: %v", files)
	}
	for i, id := range ids {
		rec, err := cluster.LoadRecord(ctx, id)
		want := backend.StateRequestSent
		if i == 0 {
			want = backend.StateDone
		}
		if err != nil || rec.State != want {
			t.Fatalf("record %d: %+v %v", i, rec, err)
		}
	}
	// Starting again finds nothing more to move.
	openService(t, &certmagic.FileStorage{Path: root}, true)
}

func mustParse(t *testing.T, id string) [16]byte {
	t.Helper()
	u, ok := ParseID(id)
	if !ok {
		t.Fatalf("id %q", id)
	}
	return u
}

// deleteFails is a file storage whose deletions fail.
type deleteFails struct{ *certmagic.FileStorage }

func (deleteFails) Delete(context.Context, string) error { return errors.New("EIO") }

// TestDeleteLeavesNoOlderDocument: a record whose per-record document
// (from before the journal) cannot be deleted stays as the journal holds
// it. The journal's deletion used to come first: the record then read as
// its older document (request-sent again) after a failure or a crash
// between the two.
func TestDeleteLeavesNoOlderDocument(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := &certmagic.FileStorage{Path: root}
	log, err := recordlog.Open(files.Filename(JournalDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	j := journaled{log: log, docs: store.New(deleteFails{files}, "records"), docsDir: files.Filename(store.Prefix + "/records")}
	id := uuid.NewString()
	if err := j.docs.Put(ctx, id, map[string]string{"state": "request-sent"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Put(ctx, id, map[string]string{"state": "done"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Delete(ctx, id); err == nil {
		t.Fatal("the deletion succeeded although the document could not be deleted")
	}
	b, err := j.Load(ctx, id)
	if err != nil || string(b) != `{"state":"done"}` {
		t.Fatalf("after a failed deletion the record reads %s %v, want the journal's", b, err)
	}
}
