package validate

import "testing"

func TestUnknownFieldSuggestion(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known []string
		want  string
	}{
		{"isShortUrl", knownFields, "unknown field (did you mean isShortenUrl?)"},
		{"isshortenurl", knownFields, "unknown field (did you mean isShortenUrl?)"},
		{"emailIds", knownFields, "unknown field (did you mean emailId?)"},
		{"commnet", knownFields, "unknown field (did you mean comment?)"},
		{"presentationDefiniton", knownFields, "unknown field (did you mean presentationDefinition?)"},
		{"requested_atributes", indyFields, "unknown field (did you mean requested_attributes?)"},
		{"connectionId", knownFields, "unknown field"},
		{"nonce", indyFields, "unknown field"},
		{"at", nonRevokedFields, "unknown field"},
		{"x", knownFields, "unknown field"},
	} {
		if got := unknownField(tc.name, tc.known); got != tc.want {
			t.Errorf("unknownField(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"abc", "abc", 0},
		{"abc", "acb", 1}, {"kitten", "sitting", 3}, {"isshorturl", "isshortenurl", 2},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
