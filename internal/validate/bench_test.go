package validate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/proofgate/proofgate/internal/benchutil"
)

// BenchmarkOOBIndy is a typical indy request: two attribute groups with
// restrictions, one predicate, one recipient.
func BenchmarkOOBIndy(b *testing.B) {
	v := newValidator(b, Options{})
	body := []byte(with(b, indyBody,
		set("emailId", raw(`["alice@example.com"]`)),
		set("goalCode", "aries.vc.verify"),
		set("label", "Verifier"),
		set("proofFormats.indy.requested_attributes.attr2", raw(`{"names":["given_name","family_name"],"restrictions":[{"cred_def_id":"WgWxqztrNooG92RXvxSTWv:3:CL:20:tag"}]}`)),
	))
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := v.OOB("indy", body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOOBPresentationExchange is a typical PE request: the DIF
// single-group example (two descriptors, five fields with filters, one
// submission requirement).
func BenchmarkOOBPresentationExchange(b *testing.B) {
	v := newValidator(b, Options{})
	f, err := os.ReadFile(filepath.Join(fixturesDir, "v2", "single_group_example.json"))
	if err != nil {
		b.Fatal(err)
	}
	var wrapper struct {
		PresentationDefinition json.RawMessage `json:"presentation_definition"`
	}
	if err := json.Unmarshal(f, &wrapper); err != nil {
		b.Fatal(err)
	}
	body := []byte(with(b, peBody, set("presentationDefinition", raw(wrapper.PresentationDefinition)), set("emailId", raw(`["alice@example.com"]`))))
	b.ReportAllocs()
	defer benchutil.CPUPerOp(b)()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := v.OOB("presentationExchange", body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOOBRejected is the body of bench's 400 path: four problems,
// reported. held is the gateway's way (CheckOOBHeld: the problems read
// from the pooled buffers, then released); copied is OOB's (the problems
// in memory of their own).
func BenchmarkOOBRejected(b *testing.B) {
	v := newValidator(b, Options{})
	body := []byte(`{"isShortenUrl":1,"proofFormats":{"indy":{}}}`)
	b.Run("held", func(b *testing.B) {
		b.ReportAllocs()
		defer benchutil.CPUPerOp(b)()
		for b.Loop() {
			_, problems, held := v.CheckOOBHeld("indy", body)
			if len(problems) != 4 {
				b.Fatalf("problems: %q", problems)
			}
			held.Release()
		}
	})
	b.Run("copied", func(b *testing.B) {
		b.ReportAllocs()
		defer benchutil.CPUPerOp(b)()
		for b.Loop() {
			if _, err := v.OOB("indy", body); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}
