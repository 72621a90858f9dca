package recordlog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/diskfile"
)

// replay reads every file back into memory: the highest version of each
// record, unless a deletion of that version or a later one was read.
func (l *Log) replay() error {
	seqs, err := segmentFiles(l.dir)
	if err != nil {
		return err
	}
	dead := make(map[uuid.UUID]uint32)
	for _, seq := range seqs {
		f, err := os.Open(l.path(seq))
		if err != nil {
			return err
		}
		s := &segment{seq: seq, f: f, tombs: make(map[uuid.UUID]uint32)}
		l.segs[seq] = s
		l.next = seq + 1
		if err := l.readSegment(s, dead); err != nil {
			return err
		}
	}
	l.index.each(func(_ uuid.UUID, at loc) { l.segs[at.seg].live += at.lineLen() })
	// When a file's lines stopped being current is not kept: since its
	// last write at the latest.
	for _, s := range l.segs {
		if s.live < s.size {
			if fi, err := s.f.Stat(); err == nil {
				s.garbageAt = fi.ModTime()
			} else {
				s.garbageAt = l.now()
			}
		}
	}
	return nil
}

// readSegment reads one file's lines. A line that cannot be read is
// skipped with a warning (a torn last line is what a crash during an
// unacknowledged write leaves); the file's size counts whole lines only.
func (l *Log) readSegment(s *segment, dead map[uuid.UUID]uint32) error {
	r := bufio.NewReaderSize(s.f, 256<<10)
	var (
		off  int64
		long []byte
	)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && bytes.IndexByte(line, 0) < 0 {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		// The zeros filled ahead of the batches (a file this process was
		// writing when it stopped without giving them back): the lines
		// end at the first.
		if end := diskfile.ContentEnd(line); end < len(line) {
			line, err = line[:end], io.EOF
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				l.logger.Warn("record journal: an unfinished last line is skipped (a write cut short)",
					zap.String("file", s.f.Name()), zap.Int64("offset", off), zap.Int("bytes", len(line)))
			}
			break
		}
		if err != nil {
			return err
		}
		p, ok := parseLine(line)
		if ok && off+int64(len(line)) > math.MaxUint32 {
			ok = false // not a file this package wrote
		}
		if !ok {
			l.logger.Warn("record journal: an unreadable line is skipped",
				zap.String("file", s.f.Name()), zap.Int64("offset", off), zap.Int("bytes", len(line)))
			off += int64(len(line))
			continue
		}
		l.apply(s, p, off, dead)
		off += int64(len(line))
	}
	s.size = off
	return nil
}

// line is what parseLine reads from one line.
type line struct {
	id       uuid.UUID
	ver      uint32
	deleted  bool
	docStart int // offset of the document in the line
	docLen   int
}

// parseLine reads a line exactly as writeBatch writes it.
func parseLine(b []byte) (line, bool) {
	var p line
	rest, ok := bytes.CutPrefix(b, []byte(`{"id":"`))
	if !ok || len(rest) < 36 {
		return p, false
	}
	id, err := uuid.ParseBytes(rest[:36])
	if err != nil {
		return p, false
	}
	p.id = id
	rest, ok = bytes.CutPrefix(rest[36:], []byte(`","v":`))
	if !ok {
		return p, false
	}
	n := 0
	for n < len(rest) && n < 10 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	v, err := strconv.ParseUint(string(rest[:n]), 10, 32)
	if err != nil || v == 0 {
		return p, false
	}
	p.ver = uint32(v)
	rest = rest[n:]
	if bytes.Equal(rest, []byte(`,"deleted":true}`+"\n")) {
		p.deleted = true
		return p, true
	}
	doc, ok := bytes.CutPrefix(rest, []byte(`,"doc":`))
	if !ok {
		return p, false
	}
	doc, ok = bytes.CutSuffix(doc, []byte("}\n"))
	if !ok || len(doc) < 2 || doc[0] != '{' || doc[len(doc)-1] != '}' {
		return p, false
	}
	p.docStart, p.docLen = len(b)-len(doc)-2, len(doc)
	return p, true
}

// apply takes one line read back at off in s into memory.
func (l *Log) apply(s *segment, p line, off int64, dead map[uuid.UUID]uint32) {
	if p.deleted {
		s.tombs[p.id] = p.ver
		if d, ok := dead[p.id]; !ok || p.ver > d {
			dead[p.id] = p.ver
		}
		if at, ok := l.index.get(p.id); ok && at.ver <= p.ver {
			l.index.del(p.id)
		}
		return
	}
	if d, ok := dead[p.id]; ok && d >= p.ver {
		return
	}
	if at, ok := l.index.get(p.id); ok && at.ver > p.ver {
		return
	}
	// An equal version read later is the same document copied (a
	// compaction) or a write retried after a failed one: the later wins.
	l.index.set(p.id, loc{seg: s.seq, n: uint32(p.docLen), ver: p.ver, off: uint32(off) + uint32(p.docStart)})
}
