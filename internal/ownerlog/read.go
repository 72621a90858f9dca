package ownerlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// Reading the documents: what a start, a refresh and a compaction read,
// within what a reading accepts (readLimit), skipping what it cannot.

// documentLimit, when set, replaces maxDocument: the tests lower it rather
// than write tens of megabytes. Atomic, since the Logs of earlier tests
// may still be reading.
var documentLimit atomic.Int64

// readLimit returns the largest document read back.
func readLimit() int {
	if n := documentLimit.Load(); n > 0 {
		return int(n)
	}
	return maxDocument
}

// errUnreadable is the error of a document that no reading will read: it
// is larger than readLimit, or not a document (documents never change
// once written; an append file's lines are read one by one instead).
var errUnreadable = errors.New("ownerlog: unreadable document")

// fetch loads one document's bytes.
func (l *Log) fetch(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	b, err := l.storage.Load(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := checkSize(key, int64(len(b))); err != nil {
		return nil, err
	}
	return b, nil
}

// checkSize refuses a document of size bytes larger than a reading
// accepts.
func checkSize(key string, size int64) error {
	if limit := readLimit(); size > int64(limit) {
		return fmt.Errorf("%w: %s is %d bytes, more than %d", errUnreadable, key, size, limit)
	}
	return nil
}

// read loads and decodes one document; an append file's complete lines
// are read as one document.
func (l *Log) read(ctx context.Context, key string) (document, error) {
	var doc document
	b, err := l.fetch(ctx, key)
	if err != nil {
		return doc, err
	}
	if kindOf(key) == 'a' {
		var ts []tombstone
		dated := docTime(key)
		eachLine(b, func(line document, _ error) {
			doc.Owners = append(doc.Owners, line.Owners...)
			ts = append(ts, line.tombstones(dated)...)
		})
		return doc.withTombstones(ts), nil
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("%w: decoding %s: %w", errUnreadable, key, err)
	}
	return doc, nil
}

// eachLine decodes every complete line of b (those that do not decode
// come with their error) and returns the bytes they span: an incomplete
// last line is left. The lines end at the first NUL (an append file's
// zeros ahead of its writes, see appender): a line holding one is not
// complete, even with its newline, since a reader may see a write's later
// page before its earlier one.
func eachLine(b []byte, fn func(document, error)) int {
	n := 0
	b = b[:diskfile.ContentEnd(b)]
	for {
		line, rest, complete := bytes.Cut(b, []byte{'\n'})
		if !complete {
			return n
		}
		var doc document
		fn(doc, json.Unmarshal(line, &doc))
		n += len(line) + 1
		b = rest
	}
}

// list returns the documents of the directory (none when it does not
// exist yet).
func (l *Log) list(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	keys, err := l.storage.List(ctx, l.dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	docs := keys[:0]
	for _, k := range keys {
		if l.isDocument(k) {
			docs = append(docs, k)
		}
	}
	return docs, nil
}

// load reads every listed document not read yet and forgets the names of
// documents gone (compacted, here or elsewhere: their entries are in a
// segment). A document that vanishes between the listing and its reading
// was compacted; the listing is taken again to find its segment.
//
// One document that cannot be read does not stop the others from being
// read: an unreadable one (errUnreadable) is skipped for good, with an
// error logged; any other failure is returned once the rest are read, and
// the next reading tries that document again.
func (l *Log) load(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		keys, err := l.list(ctx)
		if err != nil {
			return fmt.Errorf("ownerlog: listing %s: %w", l.dir, err)
		}
		vanished := false
		var failed []error
		listed := make(map[string]struct{}, len(keys))
		for _, key := range keys {
			listed[key] = struct{}{}
			st, known := l.docState(key)
			var err error
			switch {
			case st.unreadable: // skipped for good (skip)
			case kindOf(key) == 'a':
				err = l.readLines(ctx, key)
			case !known:
				err = l.readDocument(ctx, key)
			}
			switch {
			case errors.Is(err, fs.ErrNotExist):
				vanished = true
			case errors.Is(err, errUnreadable):
				l.skip(key, err)
			case err != nil:
				if ctx.Err() != nil {
					return err
				}
				failed = append(failed, err)
			}
		}
		l.docsMu.Lock()
		for key := range l.docs {
			if _, ok := listed[key]; !ok {
				delete(l.docs, key)
			}
		}
		l.docsMu.Unlock()
		if !vanished || attempt == 2 {
			return errors.Join(failed...)
		}
	}
}

// skip notes that the document key cannot be read (err), so that it is
// neither read again nor merged, and says so. Its owners are not found.
// Its tombstones do not apply: an owner one of them forgot that another
// document still holds is found again, for as long as the document is
// skipped (a tombstone wins whenever it is read). That owner states only
// what was true, the org that asked for the record created it, and
// proofgate forgets a record only as it deletes it at the agent, so an
// accept of it finds nothing there: what a forgetting whose write failed
// leaves too. Since
// compaction splits tombstones as it splits owners, a document past the
// limit is an earlier version's segment, or damage.
func (l *Log) skip(key string, err error) {
	l.logger.Error("skipping a record owners document that cannot be read: its owners are not found and its tombstones do not apply",
		zap.String("key", key), zap.Error(err))
	l.setDoc(key, docState{unreadable: true})
}

// readDocument reads a batch or a segment into memory. On file_system
// storage, where it is one system call, a segment's size is asked first:
// one past the limit is refused without being loaded. (Elsewhere a stat
// may cost as much as the loading; an unreadable document is loaded once.)
func (l *Log) readDocument(ctx context.Context, key string) error {
	if kindOf(key) == 's' && l.appender != nil {
		if info, err := l.storage.Stat(ctx, key); err == nil {
			if err := checkSize(key, info.Size); err != nil {
				return err
			}
		}
	}
	doc, err := l.read(ctx, key)
	if err != nil {
		return err
	}
	l.idx.add(doc.Owners, doc.tombstones(docTime(key)))
	l.setDoc(key, docState{entries: doc.entries()})
	return nil
}

// readLines reads the lines added to an append file since it was last
// read. An incomplete last line (being written, or cut by a crash before
// its commit was acknowledged) is left for the next reading; a line that
// does not decode is skipped with a warning.
func (l *Log) readLines(ctx context.Context, key string) error {
	st, _ := l.docState(key)
	if l.appender != nil && l.appender.own(key) {
		return nil // this process's own: in memory already
	}
	// The stat comes first: a write after it moves the modification
	// time again, so othersAppended sees it even if this reading did.
	info, statErr := l.storage.Stat(ctx, key)
	statAt := time.Now()
	if statErr == nil {
		if err := checkSize(key, info.Size); err != nil {
			return err
		}
	}
	b, err := l.fetch(ctx, key)
	if err != nil {
		return err
	}
	st.fileSize, st.modified, st.statAt = 0, time.Time{}, time.Time{}
	if statErr == nil {
		st.fileSize, st.modified, st.statAt = info.Size, info.Modified, statAt
	}
	if len(b) <= st.size {
		l.setDoc(key, st)
		return nil
	}
	st.size += eachLine(b[st.size:], func(doc document, err error) {
		if err != nil {
			l.logger.Warn("skipping an undecodable line of a record owners file", zap.String("key", key), zap.Error(err))
			return
		}
		l.idx.add(doc.Owners, doc.tombstones(docTime(key)))
		st.entries += doc.entries()
	})
	l.setDoc(key, st)
	return nil
}
