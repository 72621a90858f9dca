package proc

import (
	"strings"
	"sync"
)

// MaxTail caps the output a Tail keeps in memory; the end is what
// explains a failure.
const MaxTail = 256 << 10

// Tail keeps the last MaxTail bytes written to it (an agent's stdout and
// stderr). The zero value is ready to use; it is safe for concurrent use.
type Tail struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool
}

func (b *Tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - MaxTail; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
	return len(p), nil
}

// String returns the kept output with every secret replaced by "[redacted]".
func (b *Tail) String(secrets ...string) string {
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
