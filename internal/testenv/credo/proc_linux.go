package credo

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the holder in its own process group, so that cleanup can
// kill it with any children, and asks the kernel to kill it if the test
// binary dies first (a -timeout panic skips t.Cleanup).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the holder's whole process group; its wallet is in
// memory, so there is nothing to shut down cleanly.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
