//go:build !linux

package diskfile

import (
	"errors"
	"os"
)

// Fdatasync is fsync where fdatasync(2) is not available.
func Fdatasync(f *os.File) error { return f.Sync() }

// ErrLocked means another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// LockExclusive opens the lock file; on systems without flock(2) support
// here it does not keep other processes out.
func LockExclusive(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
