package ownerlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// pending is one Append or Forget waiting for its batch (l.commit, a
// groupcommit.Committer: one storage write per batch).
type pending struct {
	entry  Entry
	forget bool
	at     uint32 // a Forget's time (Unix seconds)
}

// writeBatch stores batch as one document, then puts it into memory.
func (l *Log) writeBatch(batch []pending) error {
	var doc document
	var ts []tombstone
	for _, p := range batch {
		if p.forget {
			ts = append(ts, tombstone{id: p.entry.ID, at: p.at})
		} else {
			doc.Owners = append(doc.Owners, p.entry)
		}
	}
	doc = doc.withTombstones(ts)
	var err error
	if l.appender != nil {
		err = l.appender.write(doc)
	} else {
		err = l.store(context.Background(), l.name('b'), doc)
	}
	if err != nil {
		l.idx.release(doc.Owners) // nothing written: the ids are free again
		return err
	}
	// Put before the claims end, so that a create of one of these ids
	// finds it held or claimed at every moment.
	l.idx.add(doc.Owners, ts)
	l.idx.release(doc.Owners)
	l.maybeCompact()
	return nil
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
