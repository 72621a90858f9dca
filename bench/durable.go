package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// durableWrites measures the durable-write ceiling of dir: conns writers,
// each writing a size-byte file the way Caddy's file_system storage stores
// a document (create a temporary file beside it, write, fsync, close,
// rename over the name), for d. A proofgate create that makes one durable
// write cannot be faster than this at the same concurrency.
//
// Every file gets a new name, as every created record does (its id is a
// new UUID): a rename over an existing file costs the disk differently
// (the old file is freed in the same transaction), so names that repeat
// across rounds or calls would measure another ceiling.
func durableWrites(dir string, size, conns int, d time.Duration) result {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return result{Errors: 1, FirstError: err.Error()}
	}
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = 'a' + byte(i%26)
	}
	var (
		errs     atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	lats := make([][]time.Duration, conns)
	start := time.Now()
	deadline := start.Add(d)
	for i := range conns {
		wg.Go(func() {
			var lat []time.Duration
			for {
				s := time.Now()
				if !s.Before(deadline) {
					break
				}
				name := filepath.Join(dir, uuid.NewString()+".json")
				if err := writeDurably(name, payload); err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				lat = append(lat, time.Since(s))
			}
			lats[i] = lat
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lats...)
	slices.Sort(all)
	res := result{Requests: int64(len(all)), Errors: errs.Load(), Seconds: elapsed.Seconds()}
	if s, ok := firstErr.Load().(string); ok {
		res.FirstError = s
	}
	if n := len(all); n > 0 {
		res.P50us = float64(all[n/2]) / 1e3
		res.P99us = float64(all[min(n-1, n*99/100)]) / 1e3
	}
	return res
}

// writeDurably is certmagic's FileStorage.Store: MkdirAll, then an atomic
// file (temporary file, chmod, write, fsync, close, rename).
func writeDurably(name string, b []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), name)
}

// durableRole prints the durable-write ceiling of args[0] in writes/s, for
// files of args[1] bytes (2048 when not given), with conns writers for d:
// the bench's durable_write reference, measured alone. The files stay, as
// the bench's do: deleting thousands of them at once would load the disk
// for whatever is measured next.
func durableRole(args []string, conns int, d time.Duration) error {
	if len(args) < 1 || len(args) > 2 {
		return errors.New("durable: want a directory and, optionally, a file size")
	}
	size := 2048
	if len(args) == 2 {
		if _, err := fmt.Sscan(args[1], &size); err != nil || size < 1 {
			return fmt.Errorf("durable: size %q is not a positive number", args[1])
		}
	}
	res := durableWrites(args[0], size, conns, d)
	if res.Errors > 0 {
		return fmt.Errorf("durable: %d writes failed, the first: %s", res.Errors, res.FirstError)
	}
	_, err := fmt.Printf("%.1f\n", float64(res.Requests)/res.Seconds)
	return err
}
