package acapy

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the agent in its own process group, so that cleanup can
// kill it with any children, and asks the kernel to kill it if the test
// binary dies first (a -timeout panic skips t.Cleanup).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the agent's whole process group. SIGKILL, not SIGTERM:
// aca-py 0.12.8 ignores SIGTERM, and its wallet is thrown away anyway.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
