//go:build linux

package diskfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Fdatasync flushes f's data and the metadata needed to read it back (its
// size), not its times: cheaper than fsync for an append.
func Fdatasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// ErrLocked means another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// LockExclusive creates (if needed) and locks the file at path for this
// process, without waiting: ErrLocked when another process holds it. The
// lock lasts until the returned file is closed or the process ends, so a
// crashed holder never leaves it taken.
func LockExclusive(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}
