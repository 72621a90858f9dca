package credo

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/proofgate/proofgate/internal/testenv/proc"
)

// readyPrefix starts the one line holder.js prints on stdout once it serves.
const readyPrefix = "proofgate-credo-holder ready "

// readyLine is what follows readyPrefix.
type readyLine struct {
	Control  string `json:"control"`
	Endpoint string `json:"endpoint"`
}

// readyScanner is the holder's stdout: passed on to the output's tail,
// and scanned for the ready line, which it reports once.
type readyScanner struct {
	tail    *proc.Tail
	mu      sync.Mutex
	partial []byte         // stdout since its last newline
	ready   chan readyLine // gets the ready line once; buffered
}

func newReadyScanner(tail *proc.Tail) *readyScanner {
	return &readyScanner{tail: tail, ready: make(chan readyLine, 1)}
}

func (s *readyScanner) Write(p []byte) (int, error) {
	_, _ = s.tail.Write(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			if len(s.partial) > 64<<10 { // no line is that long; drop it
				s.partial = s.partial[:0]
			}
			return len(p), nil
		}
		if rest, ok := bytes.CutPrefix(s.partial[:i], []byte(readyPrefix)); ok {
			var r readyLine
			if json.Unmarshal(rest, &r) == nil {
				select {
				case s.ready <- r:
				default:
				}
			}
		}
		s.partial = append(s.partial[:0], s.partial[i+1:]...)
	}
}
