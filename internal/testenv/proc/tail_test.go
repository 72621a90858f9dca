package proc

import (
	"fmt"
	"strings"
	"testing"
)

func TestTailKeepsTheEndAndRedacts(t *testing.T) {
	var b Tail
	chunk := strings.Repeat("x", 1000) + "\n"
	for i := 0; i < 2*MaxTail/len(chunk); i++ {
		fmt.Fprint(&b, chunk)
	}
	fmt.Fprint(&b, "key=s3cret end\n")
	got := b.String("s3cret")
	if len(got) > MaxTail+100 {
		t.Errorf("kept %d bytes, cap is %d", len(got), MaxTail)
	}
	if !strings.HasPrefix(got, "[earlier output dropped]") || !strings.HasSuffix(got, "key=[redacted] end\n") {
		t.Errorf("unexpected head/tail: %q … %q", got[:40], got[len(got)-40:])
	}
}
