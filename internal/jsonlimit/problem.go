package jsonlimit

import "errors"

// Problem measures JSON text from a prover against MaxDepth and MaxValues
// and says what is wrong with it, worded to follow its subject ("the
// presentation " + Problem(b)): "nests deeper than 64 levels", "holds
// more than 20000 values" or "is not valid JSON"; "" when it is JSON
// within the limits. The verifier's record service and the Presentation
// Exchange check both refuse a document with this text, so they say it
// alike.
func Problem(b []byte) string {
	err := Check(b, MaxDepth, MaxValues)
	var le *LimitError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &le):
		return le.Error()
	default:
		return "is not valid JSON"
	}
}
