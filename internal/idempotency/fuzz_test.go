package idempotency

import (
	"net/http"
	"testing"
)

// FuzzParseKey: an accepted Idempotency-Key is 1-255 printable ASCII
// characters without spaces, quotes or backslashes.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"abc", `"abc"`, `""`, `"`, " a ", "a\"b", "é", "8e03978e-40d5-43e8-bc93-6894a57f9324"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		k, err := ParseKey(http.Header{"Idempotency-Key": {v}})
		if err != nil {
			return
		}
		if len(k) == 0 || len(k) > MaxKeyLength {
			t.Fatalf("accepted %q", k)
		}
		for i := 0; i < len(k); i++ {
			if k[i] <= ' ' || k[i] > '~' || k[i] == '"' || k[i] == '\\' {
				t.Fatalf("accepted %q", k)
			}
		}
	})
}
