package pefilter

import (
	"encoding/json"
	"fmt"
)

// Bounds of a number that a filter compares, or that is compared with
// one. The JSON Schema library reads a number as an exact fraction
// (math/big.Rat) for integer, minimum, maximum, multipleOf, const, enum
// and uniqueItems, and a fraction holds every digit of 10^exponent:
// "1e999999", 9 bytes, costs about 20 ms each time it is read, and a
// presentation can carry thousands of them. Within these bounds reading
// one costs microseconds, and they take every number a credential holds
// in earnest: an IEEE double (the largest is 1.8e308, the smallest
// 4.9e-324, neither past 17 significant digits), an epoch time, an age, a
// score, and integers far wider than 64 bits (a 256-bit value has 78
// digits).
const (
	// MaxNumberDigits is the digits of a number's integer and fraction
	// parts together, leading and trailing zeros included.
	MaxNumberDigits = 100
	// MaxNumberExponent bounds the magnitude of its exponent (e±N).
	MaxNumberExponent = 400
)

// NumberError is a number past MaxNumberDigits or MaxNumberExponent, at
// Pointer (a JSON pointer inside the value checked).
type NumberError struct {
	Pointer string
	Number  string
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("%s: the number %s has more than %d digits or an exponent past %d",
		e.Pointer, TruncateNumber(e.Number), MaxNumberDigits, MaxNumberExponent)
}

// CheckNumbers reports the first number of v (a decoded JSON value, its
// numbers json.Number) past the bounds, as a *NumberError, or nil. Call it
// on a prover's document before its values meet a filter: the library
// reads a number before any keyword's budget could stop it. It walks v
// once and allocates only the error.
func CheckNumbers(v any) error {
	var ptr pointer
	if bad, ok := checkNumbers(v, &ptr); !ok {
		return &NumberError{Pointer: ptr.String(), Number: bad}
	}
	return nil
}

// checkNumbers leaves ptr at the number it reports.
func checkNumbers(v any, ptr *pointer) (string, bool) {
	switch t := v.(type) {
	case json.Number:
		if !NumberWithinBounds(string(t)) {
			return string(t), false
		}
	case map[string]any:
		for k, e := range t {
			ptr.push(k)
			if bad, ok := checkNumbers(e, ptr); !ok {
				return bad, false
			}
			ptr.pop()
		}
	case []any:
		for i, e := range t {
			ptr.pushIndex(i)
			if bad, ok := checkNumbers(e, ptr); !ok {
				return bad, false
			}
			ptr.pop()
		}
	}
	return "", true
}

// NumberWithinBounds reports whether s, a JSON number, has at most
// MaxNumberDigits digits before its exponent and an exponent of at most
// MaxNumberExponent either way. Text that is no JSON number is left to
// whoever parses it.
func NumberWithinBounds(s string) bool {
	digits, i := 0, 0
	for ; i < len(s) && s[i] != 'e' && s[i] != 'E'; i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits++
		}
	}
	if digits > MaxNumberDigits {
		return false
	}
	if i == len(s) {
		return true
	}
	i++ // the e
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s)-1 && s[i] == '0' {
		i++ // 1e-0000400 is 1e-400
	}
	exp := 0
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return true // not a JSON number
		}
		exp = exp*10 + int(s[i]-'0')
		if exp > MaxNumberExponent {
			return false
		}
	}
	return true
}

// TruncateNumber shortens a number for a message.
func TruncateNumber(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
