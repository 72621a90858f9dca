//go:build !linux

package credo

import "os/exec"

// setProcAttr has nothing portable to set outside Linux; the holder exits
// by itself when its stdin (a pipe from the test binary) closes.
func setProcAttr(cmd *exec.Cmd) {}

// killGroup kills the holder process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
