package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// seeds are valid and invalid JSON of every kind the grammar has.
var seeds = []string{
	``, ` `, `{}`, ` { } `, `[]`, `[ ]`, `null`, ` null `, `nul`, `nullx`, `true`, `tru`, `false`, `fals`, `0`, `-0`, `01`, `-`,
	`-a`, `1.`, `1.5e`, `1e+`, `1.5e-3`, `-12.5E+10`, `0e0`, `"x"`, `"\u00e9"`, `"\u00G0"`, `"\u00e"`, `"\x"`, "\"\x01\"",
	"\"\x7f\"", `"a`, `"\`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{1:2}`, `[1,]`, `[1 2]`, `[,1]`, `{"a":1}{}`,
	`{"a":"x","b":{"@id":"y"},"c":true}`, "{\"a\":\"\xff\xfe\"}", `{"a":"\ud800"}`, `{"a":"x\"y\\z\/\b\f\n\r\t"}`,
	"\t{\"a\" :\r\n\"x\" , \"b\":{}}\n", `{"a":"x"} x`, `"<a href='x'>&amp;</a>"`, "\"line\u2028para\u2029\"",
	"\"\xe2\x80\"", "\"\xe2\xe2\x80\xa9\"", `"\\<"`, `[-1.5e3,true,false,null,"s",{},[]]`,
	strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50), `"` + strings.Repeat("0123456789abcdef", 20) + `"`,
}

// valid is SkipValue's verdict on a whole document.
func valid(doc []byte) error {
	s := Scanner{Src: doc}
	s.Space()
	if err := s.SkipValue(0); err != nil {
		return err
	}
	return s.End()
}

func TestSkipValue(t *testing.T) {
	for _, doc := range seeds {
		err := valid([]byte(doc))
		if err != nil && err != ErrSyntax {
			t.Errorf("%q: %v, want ErrSyntax", doc, err)
		}
		if got, want := err == nil, json.Valid([]byte(doc)); got != want {
			t.Errorf("%q: valid %v, encoding/json %v", doc, got, want)
		}
	}
}

// TestDepthLimit: encoding/json takes 10000 levels of nesting, not 10001,
// whichever kind of container is innermost.
func TestDepthLimit(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1} {
		for _, inner := range []string{`[]`, `{}`, `{"a":1}`} {
			doc := []byte(strings.Repeat(`{"a":[`, (n-1)/2) + strings.Repeat("[", (n-1)%2) + inner +
				strings.Repeat("]", (n-1)%2) + strings.Repeat(`]}`, (n-1)/2))
			if got, want := valid(doc) == nil, json.Valid(doc); got != want || want != (n == MaxDepth) {
				t.Errorf("depth %d, %s innermost: valid %v, encoding/json %v", n, inner, got, want)
			}
		}
	}
}

// TestTokens: each method stops right after what it moves past, and
// reports ErrSyntax where that is not there.
func TestTokens(t *testing.T) {
	type method func(*Scanner) error
	str := func(s *Scanner) error { _, _, err := s.String(false); return err }
	for _, tc := range []struct {
		src  string
		scan method
		end  int // -1: ErrSyntax
	}{
		{`0,`, (*Scanner).Number, 1},
		{`-0.5e+7]`, (*Scanner).Number, 7},
		{`12.`, (*Scanner).Number, -1},
		{`-x`, (*Scanner).Number, -1},
		{`00`, (*Scanner).Number, 1}, // the second 0 is the next token's
		{`1E9 `, (*Scanner).Number, 3},
		{`"" `, str, 2},
		{`"a\"b"c`, str, 6},
		{`"\u12aF"`, str, 8},
		{`"\u12a"`, str, -1},
		{`"a` + "\n" + `"`, str, -1},
		{`x"`, str, -1},
		{`true}`, func(s *Scanner) error { return s.Literal("true") }, 4},
		{`nul`, func(s *Scanner) error { return s.Literal("null") }, -1},
		{` : 1`, (*Scanner).Colon, 3},
		{` ; 1`, (*Scanner).Colon, -1},
		{`{"a":[1,{}],"b":"}"} ,`, func(s *Scanner) error { return s.SkipValue(0) }, 20},
		{`[1,]`, func(s *Scanner) error { return s.SkipValue(0) }, -1},
	} {
		s := Scanner{Src: []byte(tc.src)}
		err := tc.scan(&s)
		switch {
		case tc.end < 0 && err != ErrSyntax:
			t.Errorf("%q: %v, want ErrSyntax", tc.src, err)
		case tc.end >= 0 && (err != nil || s.Pos != tc.end):
			t.Errorf("%q: stopped at %d (%v), want %d", tc.src, s.Pos, err, tc.end)
		}
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		src     string
		html    bool
		rewrite int
		escaped bool
	}{
		{`"plain"`, true, 7, false},
		{`"a\nb"`, false, 6, true},
		{`"a<b"`, false, 5, false},
		{`"a<b"`, true, 2, false},
		{`"\\&<"`, true, 3, true},
		{"\"ab\u2029\"", true, 3, false},
		{"\"ab\u2029\"", false, 7, false},
		{"\"\xe2\x80\xa7\"", true, 5, false}, // U+2027 is no line separator
		{`"` + strings.Repeat("x", 20) + `>"`, true, 21, false},
	} {
		s := Scanner{Src: []byte(tc.src)}
		rewrite, escaped, err := s.String(tc.html)
		if err != nil || rewrite != tc.rewrite || escaped != tc.escaped || s.Pos != len(tc.src) {
			t.Errorf("String(%q, html %v) = %d, %v, %v at %d; want %d, %v", tc.src, tc.html, rewrite, escaped, err, s.Pos, tc.rewrite, tc.escaped)
		}
	}
}

func TestNext(t *testing.T) {
	for _, tc := range []struct {
		src  string
		more bool
		end  int // -1: ErrSyntax
	}{
		{` , x`, true, 3}, {`]x`, false, 1}, {` ] `, false, 2}, {`}`, false, -1}, {``, false, -1}, {`;`, false, -1},
	} {
		s := Scanner{Src: []byte(tc.src)}
		more, err := s.Next(']')
		if tc.end < 0 && err != ErrSyntax || tc.end >= 0 && (err != nil || more != tc.more || s.Pos != tc.end) {
			t.Errorf("Next(%q) = %v, %v at %d; want %v at %d", tc.src, more, err, s.Pos, tc.more, tc.end)
		}
	}
}

// PlainRun stops exactly at the first byte that needs a look, wherever it
// falls in an eight-byte word.
func TestPlainRun(t *testing.T) {
	for _, special := range []byte{0, 0x1f, '"', '\\', '<', '>', '&', 0x80, 0xe2, 0xff} {
		for pos := range 20 {
			s := []byte(strings.Repeat("a", 20))
			s[pos] = special
			for start := 0; start <= pos; start++ {
				for _, html := range []bool{false, true} {
					want := pos
					if !html && (special == '<' || special == '>' || special == '&') {
						want = len(s)
					}
					if got := PlainRun(s, start, html); got != want {
						t.Fatalf("PlainRun(%q, %d, %v) = %d, want %d", s, start, html, got, want)
					}
					if got := PlainRun(string(s), start, html); got != want {
						t.Fatalf("PlainRun(string %q, %d, %v) = %d, want %d", s, start, html, got, want)
					}
				}
			}
		}
	}
}

// tokenEnds walks a valid document with the Scanner's token methods and
// returns where each token ends, as json.Decoder's Token and InputOffset
// see them (',' and ':' are no tokens to it).
func tokenEnds(t *testing.T, doc []byte) []int64 {
	s := Scanner{Src: doc}
	var ends []int64
	var walk func()
	walk = func() {
		switch start := s.Pos; s.Src[start] {
		case '{', '[':
			closing, empty := s.Enter()
			ends = append(ends, int64(start+1))
			if empty {
				ends = append(ends, int64(s.Pos))
				return
			}
			for {
				if closing == '}' {
					checkString(t, &s)
					ends = append(ends, int64(s.Pos))
					if err := s.Colon(); err != nil {
						t.Fatalf("%q: colon at %d: %v", doc, s.Pos, err)
					}
				}
				walk()
				more, err := s.Next(closing)
				if err != nil {
					t.Fatalf("%q: next at %d: %v", doc, s.Pos, err)
				}
				if !more {
					ends = append(ends, int64(s.Pos))
					return
				}
			}
		case '"':
			checkString(t, &s)
			ends = append(ends, int64(s.Pos))
		default:
			if err := s.SkipValue(0); err != nil {
				t.Fatalf("%q: value at %d: %v", doc, start, err)
			}
			ends = append(ends, int64(s.Pos))
		}
	}
	s.Space()
	walk()
	return ends
}

// checkString moves past the string at s.Pos, checking what String
// reports against a byte-by-byte look.
func checkString(t *testing.T, s *Scanner) {
	start := s.Pos
	rewrite, escaped, err := s.String(true)
	if err != nil {
		t.Fatalf("%q: string at %d: %v", s.Src, start, err)
	}
	lit := s.Src[start:s.Pos]
	wantRewrite := s.Pos
	for j := range lit {
		if bytes.IndexByte([]byte("<>&"), lit[j]) >= 0 || bytes.HasPrefix(lit[j:], []byte("\u2028")) || bytes.HasPrefix(lit[j:], []byte("\u2029")) {
			wantRewrite = start + j
			break
		}
	}
	if wantEscaped := bytes.IndexByte(lit, '\\') >= 0; rewrite != wantRewrite || escaped != wantEscaped {
		t.Fatalf("String(%q) = %d, %v; want %d, %v", lit, rewrite, escaped, wantRewrite, wantEscaped)
	}
	s.Pos = start
	if rewrite, _, _ := s.String(false); rewrite != start+len(lit) || s.Pos != rewrite {
		t.Fatalf("String(%q) without html = %d, want its end %d", lit, rewrite, start+len(lit))
	}
}

// FuzzScanner holds the Scanner to encoding/json: SkipValue accepts what
// json.Valid accepts, and on valid documents each token ends where
// json.Decoder says it does.
func FuzzScanner(f *testing.F) {
	for _, d := range seeds {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := valid(doc)
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Fatalf("%q: %v", doc, err)
		}
		if got, want := err == nil, json.Valid(doc); got != want {
			t.Fatalf("%q: valid %v, encoding/json %v (%v)", doc, got, want, err)
		}
		if err != nil {
			return
		}
		got := tokenEnds(t, doc)
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var want []int64
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%q: encoding/json: %v", doc, err)
			}
			want = append(want, dec.InputOffset())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: tokens end at %v, encoding/json %v", doc, got, want)
		}
	})
}
