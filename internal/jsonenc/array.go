package jsonenc

// AppendArray appends list as encoding/json writes a slice: null for a nil
// slice, else its elements between brackets, each appended by elem. The
// hand-written encoders of records, invitations, answers and owner lines
// share it.
func AppendArray[T any](b []byte, list []T, elem func([]byte, T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, v)
	}
	return append(b, ']')
}
