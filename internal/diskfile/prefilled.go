package diskfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
)

// Prefilled appends to a file whose space ahead of the writes is already
// zero-filled and synced, so that making an append durable is one
// fdatasync of data: the file's size and blocks do not change, so the
// file system has no metadata to write with it. On ext4 (with or without
// a journal) an fdatasync after a plain append also writes the inode,
// which roughly doubles its I/O and CPU; PostgreSQL zero-fills its WAL
// segments for the same reason.
//
// The file's content ends where its zeros begin: lines of JSON never
// hold a NUL byte, so readers stop at the first one (ContentEnd). A crash
// leaves at most the unacknowledged last write, cut short, before the
// zeros. Finish gives the zeros back.
//
// A Prefilled is not safe for concurrent use; its users write from one
// goroutine (their committer) at a time.
type Prefilled struct {
	f      *os.File
	end    int64 // bytes of content
	filled int64 // bytes of the file: content, then zeros (durable)
}

// Fill sizes: the first fill is small, so that a file with few writes
// costs little disk, and each one doubles up to fillMax.
const (
	fillMin = 64 << 10
	fillMax = 1 << 20
)

// zeros is what a fill writes, a block at a time.
var zeros [fillMin]byte

// CreatePrefilled creates the file at path, which must not exist, for
// appends, durably: its directory entry is synced before any write relies
// on it. On an error nothing is left at path. The file is not opened with
// O_APPEND (writes go to offsets inside the zeros); it is readable too.
func CreatePrefilled(path string) (*Prefilled, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, errors.Join(err, os.Remove(path))
	}
	return &Prefilled{f: f}, nil
}

// File returns the file, for reads at offsets below Size.
func (p *Prefilled) File() *os.File { return p.f }

// Size returns the bytes of content written.
func (p *Prefilled) Size() int64 { return p.end }

// Write appends b after the content (filling ahead first where b would
// not fit in the zeros) without syncing it; Sync makes it durable. On an
// error part of b may be in the file: Discard takes it back.
func (p *Prefilled) Write(b []byte) error {
	if err := p.fill(int64(len(b))); err != nil {
		return err
	}
	if _, err := p.f.WriteAt(b, p.end); err != nil {
		return err
	}
	p.end += int64(len(b))
	return nil
}

// fill zero-fills the file ahead of the content until n more bytes fit,
// durably (a full fsync: the new size and blocks), so that the appends
// into it need only their data synced.
func (p *Prefilled) fill(n int64) error {
	if p.end+n <= p.filled {
		return nil
	}
	grow := min(max(p.filled, fillMin), fillMax)
	target := p.filled + grow
	for target < p.end+n {
		target += fillMax
	}
	for off := p.filled; off < target; {
		k := min(int64(len(zeros)), target-off)
		if _, err := p.f.WriteAt(zeros[:k], off); err != nil {
			return errors.Join(err, p.f.Truncate(p.filled))
		}
		off += k
	}
	if err := p.f.Sync(); err != nil {
		return errors.Join(err, p.f.Truncate(p.filled))
	}
	p.filled = target
	return nil
}

// Sync makes what was written durable.
func (p *Prefilled) Sync() error { return Fdatasync(p.f) }

// Discard cuts the file back to size bytes of content (at most Size),
// giving back the zeros too: what a failed write or sync left after size
// is gone. A later Write fills again.
func (p *Prefilled) Discard(size int64) error {
	p.end = min(size, p.end)
	p.filled = p.end
	return p.f.Truncate(p.end)
}

// Finish gives back the zeros after the content, once no more writes
// will come; the file stays open for reads. The cut needs no sync: zeros
// a crash leaves read as the content's end.
func (p *Prefilled) Finish() error {
	if p.filled == p.end {
		return nil
	}
	return p.Discard(p.end)
}

// ContentEnd returns where the content of b, the bytes of a prefilled
// file from its start or from a line's start, ends: at its first NUL.
func ContentEnd(b []byte) int {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return i
	}
	return len(b)
}
