package integration

import (
	"fmt"
	"strings"
	"testing"
)

func TestTrimLog(t *testing.T) {
	var lines []string
	for i := range 100 {
		level := "info"
		if i == 10 {
			level = "error"
		}
		lines = append(lines, fmt.Sprintf(`{"level":%q,"ts":1.5,"logger":"http.handlers.proofgate","msg":"line %d","request_id":"r%d"}`, level, i, i))
	}
	got := trimLog(strings.Join(lines, "\n")+"\n", false)
	for _, want := range []string{
		`error http.handlers.proofgate: line 10 request_id="r10"`,
		`info http.handlers.proofgate: line 99 request_id="r99"`,
		"… 10 lines", "… 74 lines", "PROOFGATE_TEST_LOGS=all",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("trimmed log lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n > trimKeepNotable+trimKeepLast+4 {
		t.Errorf("trimmed log has %d lines:\n%s", n, got)
	}
	if strings.Contains(got, "line 50 ") || strings.Contains(got, `"ts"`) {
		t.Errorf("trimmed log keeps what it should drop:\n%s", got)
	}
	if long := readableLogLine(strings.Repeat("x", 1000)); len(long) > trimLineLength+len("…") {
		t.Errorf("a long line is %d bytes", len(long))
	}
}
