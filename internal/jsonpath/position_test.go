package jsonpath

import "testing"

func TestReadsPosition(t *testing.T) {
	for path, want := range map[string]bool{
		"$.credentialSubject.name":              false,
		"$.type":                                false,
		"$.type[*]":                             false,
		"$..degree":                             false,
		"$.credentialSubject.nationality[0]":    true,
		"$.credentialSubject.nationality[-1]":   true,
		"$.credentialSubject.nationality[0:2]":  true,
		"$['credentialSubject']['name']":        false,
		"$.items[?(@.kind == 'a')].value":       false,
		"$.items[?(@.tags[0] == 'a')].value":    true,
		"$.items[?(@.a == 1 && @.b[1] > 2)].id": true,
	} {
		p, err := Compile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := p.ReadsPosition(); got != want {
			t.Errorf("%s: ReadsPosition %v, want %v", path, got, want)
		}
	}
}
