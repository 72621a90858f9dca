//go:build !linux

package proc

import "os/exec"

// SetGroup has nothing portable to set outside Linux.
func SetGroup(cmd *exec.Cmd) {}

// KillGroup kills cmd's process.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
