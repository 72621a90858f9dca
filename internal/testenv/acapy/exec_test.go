package acapy

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recTB records Skip and Fatal instead of ending the real test.
type recTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recTB) Helper() {}
func (r *recTB) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recTB) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

func TestRequireExecutable(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "aca-py")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	venv := t.TempDir() // has no bin/aca-py
	goodVenv := t.TempDir()
	if err := os.MkdirAll(filepath.Join(goodVenv, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(goodVenv, "bin", "aca-py"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		exe, venv   string
		ci, skipWhy string
		want        string // returned path, when found
		skip, fail  string // substring of the Skip or Fatal message
	}{
		{name: "explicit executable", exe: exe, want: exe},
		{name: "explicit missing fails even outside CI", exe: filepath.Join(dir, "nope"), fail: "PROOFGATE_ACAPY="},
		{name: "explicit not executable", exe: notExec, fail: "not an executable"},
		{name: "explicit directory", exe: dir, fail: "not an executable"},
		{name: "venv default found", venv: goodVenv, want: filepath.Join(goodVenv, "bin", "aca-py")},
		{name: "venv missing skips", venv: venv, skip: "bash .ci/acapy-venv.sh"},
		{name: "venv missing under CI fails", venv: venv, ci: "true", fail: "CI must install ACA-Py"},
		{name: "CI=false still skips", venv: venv, ci: "false", skip: "ACA-Py is not installed"},
		{name: "no Python 3.12 skips under CI too", venv: venv, ci: "true", skipWhy: "needs Python >= 3.12", skip: "needs Python >= 3.12"},
		{name: "an explicit executable wins over the skip", exe: exe, skipWhy: "needs Python >= 3.12", want: exe},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvExecutable, tc.exe)
			t.Setenv(EnvVenv, tc.venv)
			t.Setenv("CI", tc.ci)
			t.Setenv(EnvSkip, tc.skipWhy)
			rec := &recTB{TB: t}
			var got string
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = requireExecutable(rec)
			}()
			<-done
			switch {
			case tc.want != "":
				if got != tc.want || rec.skipped != "" || rec.fatal != "" {
					t.Fatalf("got %q (skip %q, fatal %q), want %q", got, rec.skipped, rec.fatal, tc.want)
				}
			case tc.skip != "":
				if !strings.Contains(rec.skipped, tc.skip) || rec.fatal != "" {
					t.Fatalf("skip %q, fatal %q; want a skip mentioning %q", rec.skipped, rec.fatal, tc.skip)
				}
			default:
				if !strings.Contains(rec.fatal, tc.fail) || rec.skipped != "" {
					t.Fatalf("skip %q, fatal %q; want a failure mentioning %q", rec.skipped, rec.fatal, tc.fail)
				}
			}
		})
	}
}

func TestDefaultVenv(t *testing.T) {
	tests := []struct {
		venv, xdg, home, want string
	}{
		{venv: "/v", xdg: "/x", home: "/h", want: "/v"},
		{xdg: "/x", home: "/h", want: "/x/proofgate/acapy-" + Version},
		{home: "/h", want: "/h/.cache/proofgate/acapy-" + Version},
	}
	for _, tc := range tests {
		t.Setenv(EnvVenv, tc.venv)
		t.Setenv("XDG_CACHE_HOME", tc.xdg)
		t.Setenv("HOME", tc.home)
		got, err := DefaultVenv()
		if err != nil || got != tc.want {
			t.Errorf("DefaultVenv() with %+v = %q, %v; want %q", tc, got, err, tc.want)
		}
	}
}
