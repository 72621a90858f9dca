package credo

import (
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/testenv/proc"
)

// TestStdoutReadyLine checks that the ready line is found however the
// holder's stdout is split into writes, that other lines are only kept, and
// that only the first ready line is reported.
func TestStdoutReadyLine(t *testing.T) {
	out := "INFO: starting\n" + readyPrefix + `{"control":"http://127.0.0.1:1","endpoint":"http://127.0.0.1:2"}` + "\n" +
		readyPrefix + `{"control":"http://127.0.0.1:3"}` + "\n"
	for _, size := range []int{1, 7, len(out)} {
		var tail proc.Tail
		w := newReadyScanner(&tail)
		for s := out; s != ""; {
			n := min(size, len(s))
			if _, err := w.Write([]byte(s[:n])); err != nil {
				t.Fatal(err)
			}
			s = s[n:]
		}
		select {
		case r := <-w.ready:
			if r.Control != "http://127.0.0.1:1" || r.Endpoint != "http://127.0.0.1:2" {
				t.Fatalf("writes of %d bytes: ready line %+v", size, r)
			}
		default:
			t.Fatalf("writes of %d bytes: no ready line", size)
		}
		select {
		case r := <-w.ready:
			t.Fatalf("writes of %d bytes: a second ready line %+v", size, r)
		default:
		}
		if !strings.HasPrefix(tail.String(), "INFO: starting\n") {
			t.Fatalf("kept output %q", tail.String())
		}
	}
}
