package jsonenc

import (
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/benchutil"
)

// benchDefinition is a presentation definition as a client sends it:
// indented, with a regular expression (escapes) and a '<' in a filter.
var benchDefinition = []byte(`{
  "id": "32f54163-7166-48f1-93d8-ff217bdb0653",
  "name": "Proof of employment",
  "purpose": "We need to know you work here & where <b>exactly</b>.",
  "input_descriptors": [
    {
      "id": "employment",
      "constraints": {
        "limit_disclosure": "required",
        "fields": [
          {"path": ["$.credentialSubject.employer", "$.vc.credentialSubject.employer"],
           "filter": {"type": "string", "pattern": "^did:web:[a-z0-9.\\-]+\\.example$"}},
          {"path": ["$.credentialSubject.since"], "filter": {"type": "number", "minimum": 1.5e3, "exclusiveMaximum": -0.25}},
          {"path": ["$.credentialSubject.active"], "filter": {"type": "boolean", "const": true}},
          {"path": ["$.credentialSubject.note"], "optional": false, "filter": null}
        ]
      }
    }
  ]
}`)

// benchCompactDefinition is the same without whitespace, as proofgate
// stores it.
var benchCompactDefinition, _ = AppendCompact(nil, benchDefinition, false)

func benchmarkCompact(b *testing.B, src []byte, html bool) {
	var buf []byte
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		var err error
		if buf, err = AppendCompact(buf[:0], src, html); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendCompact(b *testing.B) {
	b.Run("indented/html", func(b *testing.B) { benchmarkCompact(b, benchDefinition, true) })
	b.Run("indented", func(b *testing.B) { benchmarkCompact(b, benchDefinition, false) })
	b.Run("compact/html", func(b *testing.B) { benchmarkCompact(b, benchCompactDefinition, true) })
	b.Run("compact", func(b *testing.B) { benchmarkCompact(b, benchCompactDefinition, false) })
}

func BenchmarkAppendString(b *testing.B) {
	s := "https://agent.example.com/?oob=" + strings.Repeat("eyJAdHlwZSI6Imh0dHBzOi8vZGlkY29tbS5vcmcv", 30)
	var buf []byte
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	for b.Loop() {
		buf = AppendString(buf[:0], s, true)
	}
}
