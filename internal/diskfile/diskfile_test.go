package diskfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLockKeepsOtherProcessesOut locks a file here and tries it again from
// a child process (flock locks are per open file, so a second process is
// the honest check).
func TestLockKeepsOtherProcessesOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("flock is used on linux only")
	}
	if os.Getenv("DISKFILE_CHILD") != "" {
		_, err := LockExclusive(os.Getenv("DISKFILE_CHILD"))
		if errors.Is(err, ErrLocked) {
			os.Exit(3)
		}
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "lock")
	child := func() int {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockKeepsOtherProcessesOut$")
		cmd.Env = append(os.Environ(), "DISKFILE_CHILD="+path)
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	f, err := LockExclusive(path)
	if err != nil {
		t.Fatal(err)
	}
	if code := child(); code != 3 {
		t.Fatalf("child exit %d: it took a lock this process holds", code)
	}
	f.Close()
	if code := child(); code != 0 {
		t.Fatalf("child exit %d: the lock outlived its file", code)
	}
}

func TestFdatasyncAndSyncDir(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("x\n"); err != nil {
		t.Fatal(err)
	}
	if err := Fdatasync(f); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory must fail")
	}
}
