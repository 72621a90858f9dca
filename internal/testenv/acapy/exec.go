package acapy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Environment variables read by this package; .ci/acapy-venv.sh reads the
// same ones, so the script and the tests agree on where the agent lives.
const (
	// EnvExecutable names an aca-py executable to use instead of the default venv.
	EnvExecutable = "PROOFGATE_ACAPY"
	// EnvVenv overrides the virtualenv directory of .ci/acapy-venv.sh.
	EnvVenv = "PROOFGATE_ACAPY_VENV"
	// EnvSkip, set by scripts/test.sh when .ci/acapy-venv.sh could not
	// install the agent (no Python >= 3.12), is the one line every ACA-Py
	// test skips with, under CI too: the rest of the suite still runs.
	EnvSkip = "PROOFGATE_ACAPY_SKIP"
	// EnvLegacy names an aca-py 0.12.x executable (bash .ci/acapy-venv.sh
	// 0.12), the optional second target; unset, its tests skip.
	EnvLegacy = "PROOFGATE_ACAPY_0_12"
)

// Version is the acapy-agent release .ci/acapy-venv.sh installs (the
// newest on PyPI when it was pinned); the tests are written against it.
const Version = "1.4.0"

// InstallCommand is what a developer runs to install the agent.
const InstallCommand = "bash .ci/acapy-venv.sh"

// errNotInstalled marks a missing default install (skip outside CI), as
// opposed to a PROOFGATE_ACAPY that points nowhere (always a failure).
var errNotInstalled = errors.New("ACA-Py is not installed")

// DefaultVenv is the virtualenv directory .ci/acapy-venv.sh installs into:
// $PROOFGATE_ACAPY_VENV, else ${XDG_CACHE_HOME:-$HOME/.cache}/proofgate/acapy-<Version>.
func DefaultVenv() (string, error) {
	if v := os.Getenv(EnvVenv); v != "" {
		return v, nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("locating the ACA-Py venv: %w", err)
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "proofgate", "acapy-"+Version), nil
}

// Executable returns the aca-py executable the tests run: $PROOFGATE_ACAPY
// if set (it must then exist), else bin/aca-py in DefaultVenv.
func Executable() (string, error) {
	if p := os.Getenv(EnvExecutable); p != "" {
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("%s=%q: %w", EnvExecutable, p, err)
		}
		return p, nil
	}
	venv, err := DefaultVenv()
	if err != nil {
		return "", err
	}
	p := filepath.Join(venv, "bin", "aca-py")
	if err := checkExecutable(p); err != nil {
		return "", fmt.Errorf("%w: %v", errNotInstalled, err)
	}
	return p, nil
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// inCI reports whether the tests run under CI, where a missing agent is a
// failure rather than a skip.
func inCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// requireExecutable returns the executable, or skips (developer machine
// without the venv) or fails (CI, or a wrong PROOFGATE_ACAPY) the test.
func requireExecutable(t testing.TB) string {
	t.Helper()
	if reason := os.Getenv(EnvSkip); reason != "" && os.Getenv(EnvExecutable) == "" {
		t.Skip(reason)
	}
	exe, err := Executable()
	if err == nil {
		return exe
	}
	msg := fmt.Sprintf("%v; install it with `%s` or point %s at an aca-py executable", err, InstallCommand, EnvExecutable)
	if !errors.Is(err, errNotInstalled) {
		t.Fatal(msg)
	}
	if inCI() {
		t.Fatal(msg + " (CI must install ACA-Py: .ci/run has to run " + InstallCommand + ")")
	}
	t.Skip(msg)
	return ""
}

// executable returns the aca-py to run for cfg, or skips or fails t as
// requireExecutable does; the legacy target is skipped unless
// $PROOFGATE_ACAPY_0_12 names one.
func (c config) executable(t testing.TB) string {
	t.Helper()
	if !c.legacy {
		return requireExecutable(t)
	}
	p := os.Getenv(EnvLegacy)
	if p == "" {
		t.Skipf("the optional ACA-Py 0.12 target is not installed: export %s=\"$(bash .ci/acapy-venv.sh 0.12)\" to test it", EnvLegacy)
	}
	if err := checkExecutable(p); err != nil {
		t.Fatalf("%s=%q: %v", EnvLegacy, p, err)
	}
	return p
}
