package acapy

import (
	"strings"
	"sync"
)

// maxLog caps the agent output kept in memory; the tail is what explains a failure.
const maxLog = 256 << 10

// logBuffer keeps the last maxLog bytes the agent wrote to stdout and stderr.
type logBuffer struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - maxLog; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
	return len(p), nil
}

// String returns the kept output with every secret replaced by "[redacted]".
func (b *logBuffer) String(secrets ...string) string {
	b.mu.Lock()
	s := string(b.buf)
	dropped := b.dropped
	b.mu.Unlock()
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	if dropped {
		s = "[earlier output dropped]\n" + s
	}
	return s
}
