package jsonenc

import (
	"encoding/json"
	"strconv"
	"testing"
)

func TestAppendArrayIsEncodingJSON(t *testing.T) {
	str := func(b []byte, s string) []byte { return AppendString(b, s, true) }
	for _, list := range [][]string{nil, {}, {"a"}, {"a", "<b>", "c\"d"}} {
		want, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendArray([]byte("x"), list, str); string(got) != "x"+string(want) {
			t.Errorf("AppendArray(%#v) = %s, encoding/json %s", list, got[1:], want)
		}
	}
	num := func(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
	if got := string(AppendArray(nil, []int{1, 22, 333}, num)); got != "[1,22,333]" {
		t.Errorf("AppendArray of ints = %s", got)
	}
}
