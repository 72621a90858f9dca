package jsonscan

import "unicode/utf8"

// Bytes is a string or a byte slice.
type Bytes interface{ ~string | ~[]byte }

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroIn has the high bit set in (at least) the lowest byte of x that is
// zero, and is zero when no byte of x is: the classic "has zero byte"
// test, exact as to whether there is one.
func zeroIn(x uint64) uint64 { return (x - ones) &^ x & highs }

// PlainRun returns the index of the first byte of s at or after i that a
// JSON string cannot hold as it is: a control character, '"', '\\', any
// byte of a multi-byte UTF-8 sequence (which may need checking or
// escaping), and with html also '<', '>' and '&'. len(s) when there is
// none. Eight bytes are checked at a time: it serves both the scanner and
// the writers (jsonenc), since strings are nearly all of a document's
// bytes.
func PlainRun[T Bytes](s T, i int, html bool) int {
	const (
		quote     = ones * '"'
		backslash = ones * '\\'
		lt        = ones * '<'
		gt        = ones * '>'
		amp       = ones * '&'
	)
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		v := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// Bytes below 0x20 or at or above 0x80, '"' and '\\'.
		m := ((v-ones*0x20)&^v|v)&highs | zeroIn(v^quote) | zeroIn(v^backslash)
		if html {
			m |= zeroIn(v^lt) | zeroIn(v^gt) | zeroIn(v^amp)
		}
		if m != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if !plain(s[i], html) {
			return i
		}
	}
	return i
}

func plain(b byte, html bool) bool {
	switch {
	case b < 0x20 || b >= utf8.RuneSelf || b == '"' || b == '\\':
		return false
	case html && (b == '<' || b == '>' || b == '&'):
		return false
	}
	return true
}
