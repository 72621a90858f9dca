package ownerlog

import "time"

// Tombstones: a forgotten id and when it was forgotten. A tombstone wins
// over its entry in any order of reading; with a retention it goes once
// its time is past tombstoneCutoff, when no document that could hold the
// entry it forgot is left (compact.go, index.go).

// tombstone is a forgotten id and a time at or after its forgetting (Unix
// seconds): its entry was created before it.
type tombstone struct {
	id string
	at uint32
}

// tombstones returns doc's tombstones; undated ones get dated (the time
// of the document holding them).
func (doc document) tombstones(dated uint32) []tombstone {
	if len(doc.Forgotten) == 0 {
		return nil
	}
	out := make([]tombstone, len(doc.Forgotten))
	for i, id := range doc.Forgotten {
		out[i] = tombstone{id: id, at: dated}
		if i < len(doc.ForgottenAt) && doc.ForgottenAt[i] > 0 {
			out[i].at = unixSeconds(doc.ForgottenAt[i])
		}
	}
	return out
}

// withTombstones returns doc holding ts, dated.
func (doc document) withTombstones(ts []tombstone) document {
	doc.Forgotten, doc.ForgottenAt = nil, nil
	for _, t := range ts {
		doc.Forgotten = append(doc.Forgotten, t.id)
		doc.ForgottenAt = append(doc.ForgottenAt, int64(t.at))
	}
	return doc
}

// docTime is a time at or after every write to the document key (Unix
// seconds), which dates its undated tombstones: the time in its name,
// taken when a batch or a segment is written, and for an append file,
// which takes lines for rotateAfter after its name's time, appendQuiet
// later.
func docTime(key string) uint32 {
	t := stampOf(key)
	if t.IsZero() {
		return unixSeconds(time.Now().Unix())
	}
	if kindOf(key) == 'a' {
		t = t.Add(appendQuiet)
	}
	return unixSeconds(t.Unix())
}
