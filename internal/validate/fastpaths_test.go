package validate

import (
	"fmt"
	"math/rand/v2"
	"net/mail"
	"regexp"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
)

// The hand-written checks below stand in for a library or a regexp on the
// request path; each is held to what it replaces.

func TestLegacyDIDMatchesBase58(t *testing.T) {
	rows := []string{
		"WgWxqztrNooG92RXvxSTWv", "Th7MpTaRZVRYnPiabds81Y", "111111111111111111111",
		"1111111111111111111111", "11111111111111111111zz", "zzzzzzzzzzzzzzzzzzzzzz",
		"zzzzzzzzzzzzzzzzzzzzz", "2222222222222222222222", "WgWxqztrNooG92RXvxSTW0",
		"WgWxqztrNooG92RXvxSTWl", "WgWxqztrNooG92RXvxSTWé", "1WgWxqztrNooG92RXvxSTW",
		"", "short", "WgWxqztrNooG92RXvxSTWvWgWx",
	}
	// Random strings over the alphabet around the 16-byte boundary, and
	// encodings of 15, 16 and 17 bytes with leading zeros.
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	for range 2000 {
		n := 21 + r.IntN(2)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		rows = append(rows, string(b))
	}
	for _, size := range []int{15, 16, 17} {
		for zeros := range 4 {
			for range 50 {
				b := make([]byte, size)
				for i := zeros; i < size; i++ {
					b[i] = byte(r.IntN(256))
				}
				rows = append(rows, base58.Encode(b))
			}
		}
	}
	for _, s := range rows {
		b, err := base58.Decode(s)
		want := len(s) >= 21 && len(s) <= 22 && err == nil && len(b) == 16
		if got := legacyDID(s); got != want {
			t.Errorf("legacyDID(%q) = %v, base58 says %v", s, got, want)
		}
	}
}

func TestDottedVersionMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
	for _, s := range []string{
		"1", "1.0", "1.2.3", "10.20.300", "", ".", "1.", ".1", "1..0", "1.0a", "a", "1,0",
		"1.0\n", "\n1.0", " 1.0", "١.٠", "0", "00.00", "1.2.3.4.5.6.7.8.9",
	} {
		if got, want := dottedVersion(s), pattern.MatchString(s); got != want {
			t.Errorf("dottedVersion(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}

func TestLegacySchemaID(t *testing.T) {
	for s, want := range map[string]bool{
		"WgWxqztrNooG92RXvxSTWv:2:schema_name:1.0":         true,
		"did:sov:WgWxqztrNooG92RXvxSTWv:2:schema_name:1.0": true,
		"WgWxqztrNooG92RXvxSTWv:2:a:b:1.0":                 false, // the name is the part before the version
		"WgWxqztrNooG92RXvxSTWv:2::1.0":                    false,
		"WgWxqztrNooG92RXvxSTWv:3:schema_name:1.0":         false,
		"WgWxqztrNooG92RXvxSTWv:2:schema_name:1.x":         false,
		":2:schema_name:1.0":                               false,
		"2:schema_name:1.0":                                false,
		"":                                                 false,
	} {
		if got := legacySchemaID(s); got != want {
			t.Errorf("legacySchemaID(%q) = %v, want %v", s, got, want)
		}
	}
}

// simpleAddress may only say yes where net/mail parses the input back to
// itself without a display name; bareAddress's answer never changes.
func TestSimpleAddressAgreesWithNetMail(t *testing.T) {
	rows := []string{
		"alice@example.com", "a.b.c@d.e.f", "x+tag@example.com", "!#$%&'*+-/=?^_`{|}~@x",
		"a@b", ".a@b", "a.@b", "a..b@c", "a@b.", "a@.b", "a@b..c", "@b", "a@", "a@b@c",
		"a b@c", "a@b c", "a\t@b", "\"a\"@b", "a@[1.2.3.4]", "(c)a@b", "a@b(c)", "a@b (c)",
		"Alice <a@b.c>", "<a@b.c>", "a\x7f@b", "a\x00@b", "é@b", "a@é", "a,b@c", "a;b@c",
		"a:b@c", "a\\b@c", "a[b@c", "a@b]c", "a@b\r\n", " a@b", "a@b ",
	}
	r := rand.New(rand.NewPCG(3, 4))
	const chars = "ab.@ \"<>()[]:;,\\+-é\x7f\t"
	for range 5000 {
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		rows = append(rows, string(b))
	}
	for _, s := range rows {
		a, err := mail.ParseAddress(s)
		exact := err == nil && a.Name == "" && a.Address == s
		if simpleAddress(s) && !exact {
			t.Errorf("simpleAddress(%q) accepts what net/mail reads as %v, %v", s, a, err)
		}
		if got := bareAddress(s); got != exact {
			t.Errorf("bareAddress(%q) = %v, net/mail says %v", s, got, exact)
		}
	}
}

// More recipients than seenSet keeps on the stack: duplicates are
// found across the switch to its map.
func TestManyRecipientsDuplicates(t *testing.T) {
	v := newValidator(t, Options{MaxRecipients: 30})
	var mails []string
	for i := range 20 {
		mails = append(mails, fmt.Sprintf(`"user%d@example.com"`, i))
	}
	mails = append(mails, `"USER3@example.com"`, `"user15@EXAMPLE.com"`, `"user19@example.com"`)
	body := with(t, indyBody, set("emailId", raw("["+strings.Join(mails, ",")+"]")))
	_, err := v.OOB("indy", []byte(body))
	sameProblems(t, problems(t, err), []string{
		"emailId[20]: duplicate of emailId[3]",
		"emailId[21]: duplicate of emailId[15]",
		"emailId[22]: duplicate of emailId[19]",
	})
}

// Objects past smallObject members find duplicates through a map; the last
// value counts, as with encoding/json, at any size.
func TestDuplicatesInLargeObjects(t *testing.T) {
	for _, n := range []int{2, smallObject - 1, smallObject, smallObject + 1, 3 * smallObject} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var members []string
			for i := range n {
				members = append(members, fmt.Sprintf(`"k%d":%d`, i, i))
			}
			members = append(members, `"k0":"first again"`, `"k1":"second again"`, `"k0":"last"`)
			var c collector
			obj := decodeObject([]byte("{"+strings.Join(members, ",")+"}"), &c)
			if len(obj) != n || obj["k0"] != "last" || obj["k1"] != "second again" {
				t.Fatalf("%d keys, k0 %v, k1 %v", len(obj), obj["k0"], obj["k1"])
			}
			sameProblems(t, c.errors(), []string{"k0: duplicate key", "k1: duplicate key"})
		})
	}
}

// A duplicated referent is one referent: its last request counts.
func TestDuplicateReferentLastWins(t *testing.T) {
	v := newValidator(t, Options{})
	body := `{"isShortenUrl":false,"proofFormats":{"indy":{"name":"n","version":"1","requested_attributes":` +
		`{"a":{"name":"first"},"b":{"name":"other"},"a":{"names":["x","y"]}}}}}`
	_, err := v.OOB("indy", []byte(body))
	sameProblems(t, problems(t, err), []string{"proofFormats.indy.requested_attributes.a: duplicate key"})

	// The same request without the duplicate reads as the last one.
	var c collector
	p := getParser()
	defer putParser(p)
	d, ok := p.parse([]byte(body), &c)
	if !ok {
		t.Fatal(c.errors())
	}
	attrs := d.root().get("proofFormats").get("indy").get("requested_attributes")
	if attrs.len() != 2 || !attrs.get("a").get("names").is(kindArray) {
		t.Fatalf("%d referents, a = %v", attrs.len(), attrs.get("a").any())
	}
	var keys []string
	for it := attrs.members(); it.next(); {
		keys = append(keys, it.key())
	}
	if strings.Join(keys, ",") != "b,a" {
		t.Fatalf("members %v, want b then the last a", keys)
	}
}
