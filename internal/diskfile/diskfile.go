// Package diskfile holds the file-system calls that durable append-only
// files need: a data sync that skips the file's times, a file zero-filled
// ahead of its appends so that the sync has only data to write
// (Prefilled), a directory sync for new names, and an exclusive lock that
// keeps a second process out of files only one process may append to.
package diskfile

import "os"

// SyncDir makes the directory's entries (new or removed names) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
