package integration

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/recordlog"
)

// storedRecords reads every proof record kept under the storage dir: the
// record journal (a single instance on file_system storage) and
// per-record documents (cluster, or written before the journal), by id.
func storedRecords(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	docs, err := filepath.Glob(filepath.Join(dir, "proofgate", "records", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = b
	}
	journal, err := recordlog.Snapshot(filepath.Join(dir, proofs.JournalDir))
	if err != nil {
		t.Fatal(err)
	}
	for id, b := range journal {
		out[id.String()] = b
	}
	return out
}

// storedRecordDoc reads one record's stored document: nil when none.
func storedRecordDoc(t *testing.T, dir, id string) []byte {
	t.Helper()
	return storedRecords(t, dir)[id]
}

// replaceRecordDoc stores doc as the record's document, through the
// journal the gateway in this process holds (or the record's per-record
// document, where records are kept so).
func replaceRecordDoc(t *testing.T, dir, id string, doc []byte) {
	t.Helper()
	path := filepath.Join(dir, "proofgate", "records", id+".json")
	if _, err := os.Stat(path); err == nil {
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	l, err := recordlog.Acquire(filepath.Join(dir, proofs.JournalDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer recordlog.Release(l)
	u, err := uuid.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Has(u) {
		t.Fatal(errors.New("replaceRecordDoc: the gateway's journal does not hold " + id))
	}
	if err := l.Put(u, doc); err != nil {
		t.Fatal(err)
	}
}
