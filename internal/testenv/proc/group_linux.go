package proc

import (
	"os/exec"
	"syscall"
)

// SetGroup puts cmd's process in a process group of its own, so that
// KillGroup takes its children too, and asks the kernel to kill it if the
// test binary dies first (a -timeout panic skips t.Cleanup).
func SetGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// KillGroup kills cmd's whole process group. SIGKILL, not SIGTERM: the
// agents' wallets are thrown away, and aca-py 0.12.8 ignores SIGTERM.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
