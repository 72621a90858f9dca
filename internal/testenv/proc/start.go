package proc

import "os/exec"

// Running is a process started by Start.
type Running struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// Start starts cmd in a process group of its own (SetGroup) and waits for
// it in the background.
func Start(cmd *exec.Cmd) (*Running, error) {
	SetGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &Running{cmd: cmd, exited: make(chan struct{})}
	go func() { r.err = cmd.Wait(); close(r.exited) }()
	return r, nil
}

// Exited is closed once the process has exited.
func (r *Running) Exited() <-chan struct{} { return r.exited }

// Err is how the process ended (cmd.Wait's error); read it after Exited.
func (r *Running) Err() error {
	<-r.exited
	return r.err
}

// Stop kills the process group and waits for the process to end.
func (r *Running) Stop() {
	KillGroup(r.cmd)
	<-r.exited
}
