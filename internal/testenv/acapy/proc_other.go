//go:build !linux

package acapy

import "os/exec"

// setProcAttr has nothing portable to set outside Linux.
func setProcAttr(cmd *exec.Cmd) {}

// killGroup kills the agent process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
