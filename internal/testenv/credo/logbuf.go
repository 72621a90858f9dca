package credo

import (
	"bytes"
	"encoding/json"
	"sync"
)

// maxLog caps the holder output kept in memory; the tail is what explains a failure.
const maxLog = 256 << 10

// readyPrefix starts the one line holder.js prints on stdout once it serves.
const readyPrefix = "proofgate-credo-holder ready "

// readyLine is what follows readyPrefix.
type readyLine struct {
	Control  string `json:"control"`
	Endpoint string `json:"endpoint"`
}

// logBuffer keeps the last maxLog bytes the holder wrote to stdout and
// stderr, and reports the ready line once when it sees it on stdout.
type logBuffer struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool
	partial []byte         // stdout since its last newline
	ready   chan readyLine // gets the ready line once; buffered
}

func newLogBuffer() *logBuffer { return &logBuffer{ready: make(chan readyLine, 1)} }

func (b *logBuffer) write(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - maxLog; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
}

// stderr is the holder's stderr: kept as it is.
type stderrWriter struct{ b *logBuffer }

func (w stderrWriter) Write(p []byte) (int, error) { w.b.write(p); return len(p), nil }

// stdoutWriter is the holder's stdout: kept, and scanned for the ready line.
type stdoutWriter struct{ b *logBuffer }

func (w stdoutWriter) Write(p []byte) (int, error) {
	b := w.b
	b.write(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			if len(b.partial) > 64<<10 { // no line is that long; drop it
				b.partial = b.partial[:0]
			}
			return len(p), nil
		}
		line := b.partial[:i]
		if rest, ok := bytes.CutPrefix(line, []byte(readyPrefix)); ok {
			var r readyLine
			if json.Unmarshal(rest, &r) == nil {
				select {
				case b.ready <- r:
				default:
				}
			}
		}
		b.partial = append(b.partial[:0], b.partial[i+1:]...)
	}
}

// String returns the kept output.
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped {
		return "[earlier output dropped]\n" + string(b.buf)
	}
	return string(b.buf)
}
