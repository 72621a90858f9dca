package ldp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// RFC 8785 §3.2.3's example: keys sorted by UTF-16 code units, numbers in
// ECMAScript form, minimal string escapes.
func TestJCSForm(t *testing.T) {
	in := map[string]any{
		"numbers":  []any{333333333.33333329, 1e30, 4.50, 2e-3, 0.000000000000000000000000001},
		"string":   "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"\u002f",
		"literals": []any{nil, true, false},
	}
	got, err := jcsForm(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	if string(got) != want {
		t.Fatalf("JCS\n got %s\nwant %s", got, want)
	}
}

// FuzzJCSForm: the JCS form of any JSON object is stable (canonicalizing
// it again changes nothing) and means the same JSON value.
func FuzzJCSForm(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":[1.5,"x",{"d":null,"c":true}]}`))
	f.Add([]byte(`{"\u20ac":1e21,"€":0.1,"z":-0}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v map[string]any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		once, err := jcsForm(v)
		if err != nil {
			return
		}
		var back map[string]any
		if err := json.Unmarshal(once, &back); err != nil {
			t.Fatalf("JCS form is not JSON: %s", once)
		}
		twice, err := jcsForm(back)
		if err != nil || string(twice) != string(once) {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("JCS changed the value: %s", once)
		}
	})
}
