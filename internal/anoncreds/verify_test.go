package anoncreds

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/anoncreds/cl"
	"github.com/proofgate/proofgate/internal/verify"
)

func corpusCaseNamed(t testing.TB, name string) corpusCase {
	t.Helper()
	for _, c := range loadCorpus(t).Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no corpus case %q", name)
	return corpusCase{}
}

func TestUnknownCredentialDefinition(t *testing.T) {
	reg := loadRegistry(t)
	delete(reg.defs, "did:web:issuer.example.com/cred-defs/degree")
	tc := corpusCaseNamed(t, "typical")
	got := (&Verifier{Resolver: reg}).Verify(context.Background(), tc.Request, tc.Presentation)
	if got.Verified || got.Reason != verify.ReasonUnknownCredDef ||
		len(got.Problems) != 1 || got.Problems[0] != "unknown credential definition did:web:issuer.example.com/cred-defs/degree" {
		t.Fatalf("%+v", got)
	}
}

func TestRevocationUnchecked(t *testing.T) {
	reg := loadRegistry(t)
	for _, tt := range []struct {
		name   string
		accept bool
		want   bool
	}{
		// A non-revocation proof is there: its commitments are in the
		// challenge, so nothing can be checked without pairings.
		{"revocation-proof", false, false},
		{"revocation-proof", true, false},
		// No non-revocation proof: refused as the reference refuses it,
		// unless the operator accepts unchecked revocation.
		{"revocation-missing", false, false},
		{"revocation-missing", true, true},
		// Revocation not asked, or the credential cannot be revoked.
		{"revocable-not-asked", false, true},
		{"non-revocable-asked", false, true},
	} {
		tc := corpusCaseNamed(t, tt.name)
		got := (&Verifier{Resolver: reg, AcceptUncheckedRevocation: tt.accept}).Verify(context.Background(), tc.Request, tc.Presentation)
		wantRev := RevocationUnchecked
		if strings.HasPrefix(tt.name, "revoca") && tt.name != "revocable-not-asked" {
			wantRev = RevocationUnchecked
		} else {
			wantRev = RevocationNotRequested
		}
		if got.Verified != tt.want || got.Revocation != wantRev {
			t.Errorf("%s accept=%v: %+v, want verified %v revocation %s", tt.name, tt.accept, got, tt.want, wantRev)
		}
		if got.Revocation == RevocationUnchecked && len(got.Problems) == 0 {
			t.Errorf("%s: unchecked revocation not said", tt.name)
		}
	}
}

func TestMalformedInput(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "typical")
	for name, in := range map[string][2]string{
		"request not JSON":      {"{", string(tc.Presentation)},
		"presentation not JSON": {string(tc.Request), "["},
		"nonce not a number":    {`{"nonce":"x","requested_attributes":{}}`, string(tc.Presentation)},
		"proof missing":         {string(tc.Request), `{"requested_proof":{},"identifiers":[]}`},
		"empty object":          {string(tc.Request), `{}`},
	} {
		got := v.Verify(context.Background(), []byte(in[0]), []byte(in[1]))
		if got.Verified || got.Reason == "" || len(got.Problems) == 0 {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

func TestFormatVerifier(t *testing.T) {
	fv := FormatVerifier{V: &Verifier{Resolver: loadRegistry(t)}}
	if f := fv.Formats(); len(f) != 2 {
		t.Fatal(f)
	}
	good := corpusCaseNamed(t, "typical")
	got, err := fv.Verify(context.Background(), verify.Input{Format: FormatIndyProof, Request: good.Request, Presentation: good.Presentation})
	if err != nil || !got.Verified || got.Reason != "" || len(got.Credentials) != 2 || got.Credentials[0].Signature != verify.OK {
		t.Fatalf("%+v %v", got, err)
	}
	bad := corpusCaseNamed(t, "tamper-proof-e")
	got, err = fv.Verify(context.Background(), verify.Input{Format: FormatAnonCredsProof, Request: bad.Request, Presentation: bad.Presentation})
	if err != nil || got.Verified || got.Reason != verify.ReasonSignature || got.Credentials[1].Signature != verify.Failed || len(got.Detail) > verify.MaxDetail {
		t.Fatalf("%+v %v", got, err)
	}
	raw := corpusCaseNamed(t, "tamper-raw")
	got, _ = fv.Verify(context.Background(), verify.Input{Format: FormatIndyProof, Request: raw.Request, Presentation: raw.Presentation})
	if got.Verified || got.Reason != verify.ReasonEncoding {
		t.Fatalf("%+v", got)
	}
}

// BenchmarkVerifyTypical verifies the typical proof: 2
// credentials, 5 revealed attributes, 1 predicate (corpus case
// "typical"), registry lookups from memory.
func BenchmarkVerifyTypical(b *testing.B) {
	v := &Verifier{Resolver: loadRegistry(b)}
	tc := corpusCaseNamed(b, "typical")
	b.ReportAllocs()
	for b.Loop() {
		if got := v.Verify(context.Background(), tc.Request, tc.Presentation); !got.Verified {
			b.Fatal(got)
		}
	}
}

func TestDeadlineAndWork(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "typical")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := v.Verify(ctx, tc.Request, tc.Presentation); got.Verified || got.Reason != verify.ReasonLimits {
		t.Fatalf("after the deadline: %+v", got)
	}
	// Extra predicate proofs are work the request did not ask for.
	var pres map[string]any
	if err := json.Unmarshal(tc.Presentation, &pres); err != nil {
		t.Fatal(err)
	}
	primary := pres["proof"].(map[string]any)["proofs"].([]any)[0].(map[string]any)["primary_proof"].(map[string]any)
	ge := primary["ge_proofs"].([]any)
	primary["ge_proofs"] = append(ge, ge[0], ge[0])
	more, _ := json.Marshal(pres)
	if got := v.Verify(context.Background(), tc.Request, more); got.Verified || got.Reason != verify.ReasonLimits {
		t.Fatalf("extra predicate proofs: %+v", got)
	}
}

func toMap(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func toJSON(t *testing.T, m map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hasProblem tells whether one of a verdict's problems contains want.
func hasProblem(v Verdict, want string) bool {
	for _, p := range v.Problems {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}

// eqProof is the eq_proof of sub proof i of a presentation (as a map).
func eqProof(pres map[string]any, i int) map[string]any {
	sub := pres["proof"].(map[string]any)["proofs"].([]any)[i].(map[string]any)
	return sub["primary_proof"].(map[string]any)["eq_proof"].(map[string]any)
}

// vector is a presentation of testdata/ made against the corpus
// registry, with the reference's verdict on it and, where proofgate
// departs from that on purpose, ours (as a corpus case records them).
// testdata/gen_presentations.py makes most; each says how it was made.
type vector struct {
	About     string `json:"about"`
	Reference struct {
		Anoncreds string `json:"anoncreds"`
		Verified  bool   `json:"verified"`
		Error     string `json:"error"`
	} `json:"reference"`
	Ours *struct {
		Verified bool   `json:"verified"`
		Why      string `json:"why"`
	} `json:"ours"`
	// Registry holds documents added to the corpus registry's, or put in
	// place of its own.
	Registry *struct {
		Schemas  map[string]json.RawMessage `json:"schemas"`
		CredDefs map[string]json.RawMessage `json:"cred_defs"`
	} `json:"registry"`
	Request      json.RawMessage `json:"request"`
	Presentation json.RawMessage `json:"presentation"`
}

// want is the verdict we must reach: ours where recorded, else the
// reference's.
func (v vector) want() bool {
	if v.Ours != nil {
		return v.Ours.Verified
	}
	return v.Reference.Verified
}

// loadVector reads testdata/<file> and the corpus registry with the
// vector's documents in it. A credential definition that does not parse
// is answered with its error, as a registry answers it.
func loadVector(t *testing.T, file string) (vector, *mapResolver) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var vec vector
	if err := json.Unmarshal(data, &vec); err != nil {
		t.Fatal(err)
	}
	if vec.Reference.Anoncreds != "0.2.3" {
		t.Fatalf("%s: made with anoncreds %q, want 0.2.3", file, vec.Reference.Anoncreds)
	}
	reg := loadRegistry(t)
	if vec.Registry != nil {
		for id, raw := range vec.Registry.Schemas {
			s, err := ParseSchema(id, raw)
			if err != nil {
				t.Fatal(err)
			}
			reg.schemas[id] = s
		}
		for id, raw := range vec.Registry.CredDefs {
			delete(reg.defs, id)
			d, err := ParseCredentialDefinition(id, raw)
			if err != nil {
				if reg.unusable == nil {
					reg.unusable = map[string]error{}
				}
				reg.unusable[id] = fmt.Errorf("credential definition %s: %w", id, err)
				continue
			}
			reg.defs[id] = d
		}
	}
	return vec, reg
}

// TestForgedPresentationsRefused: presentations forged against the corpus
// registry (testdata/forged_*.json, each with how it was made). The
// reference, anoncreds 0.2.3, VERIFIES all of them; proofgate refuses them:
//   - forged_e1 (a reviewer's) and forged_e1_sized: no credential at all,
//     made from the credential definition's public key with e = 1
//     (ê ≈ −2^852): ê must lie in [0, 2^457), as an honest prover's does
//     (cl.MaxEHatBits). In forged_e1_sized every other response has an
//     honest prover's size: only ê gives it away;
//   - forged_predicate_mj: a real credential with age 34 "proves" age >= 40
//     with a GE proof whose m̂j is not the equality proof's m̂ for age;
//   - forged_predicate_revealed and _le: a real credential with age 34
//     "proves" age >= 50 (age <= 20): the equality proof reveals age and
//     also carries an m̂ for it, which its check never uses, and the GE
//     proof over a made-up value has that m̂ as m̂j. A predicate is proven
//     over a hidden attribute only (cl.checkPredicateBindings).
func TestForgedPresentationsRefused(t *testing.T) {
	for _, tt := range []struct {
		file, problem string
	}{
		{"forged_e1.json", "ê is not in [0, 2^457)"},
		{"forged_e1_sized.json", "ê is not in [0, 2^457)"},
		{"forged_predicate_mj.json", "m̂j differs from the equality proof's m̂ for \"age\""},
		{"forged_predicate_revealed.json", "predicate proof 0 is over \"age\", which the equality proof reveals"},
		{"forged_predicate_revealed_le.json", "predicate proof 0 is over \"age\", which the equality proof reveals"},
	} {
		vec, reg := loadVector(t, tt.file)
		if !vec.Reference.Verified {
			t.Fatalf("%s: the vector records reference %+v", tt.file, vec.Reference)
		}
		got := (&Verifier{Resolver: reg}).Verify(context.Background(), vec.Request, vec.Presentation)
		if got.Verified || got.Reason != verify.ReasonSignature || !hasProblem(got, tt.problem) {
			t.Errorf("%s: %+v, want refused with %q", tt.file, got, tt.problem)
		}
	}
}

// TestVectors: presentations of testdata/gen_presentations.py, each
// judged as recorded (the reference's verdict, or ours where it departs)
// and for the reason given.
func TestVectors(t *testing.T) {
	for _, tt := range []struct {
		file   string
		accept bool   // AcceptUncheckedRevocation
		reason string // "" when verified
		// problem is part of the verdict's problems.
		problem string
	}{
		// The generator's CL prover is right: an honest proof it makes
		// verifies with the reference and with proofgate, so the forgeries
		// it makes (TestForgedPresentationsRefused) are forgeries of a
		// working proof.
		{file: "honest_prover.json"},
		// identifiers[].rev_reg_id is the prover's word: a credential of a
		// definition without revocation names another definition's
		// registry. A rev_reg_id restriction is never met until
		// non-revocation proofs are verified; the reference refuses too.
		{file: "rev_reg_id_claimed.json", reason: verify.ReasonRestriction,
			problem: "a rev_reg_id restriction is never met"},
		// A definition without schemaId ties the credential to no schema:
		// shown under another schema with the same attributes, it would
		// meet that schema's restrictions. It is refused as the document
		// is read, as the reference refuses it.
		{file: "cred_def_without_schema_id.json", reason: verify.ReasonUnsupported,
			problem: "schemaId is required"},
		// Revocation accepted unchecked: referent r has no non_revoked of
		// its own and is held to the request's global one, which the
		// timestamp is outside, although referent r2 of the same
		// credential has a wide interval of its own.
		{file: "revocation_global_interval.json", accept: true, reason: verify.ReasonRevocationUnchecked,
			problem: "timestamp 1600000000 is outside the requested non_revoked interval"},
		// A sub proof that answers no referent is refused before the
		// registry is asked and before any CL math, although its proof is
		// valid (the reference verifies it).
		{file: "unused_sub_proof.json", reason: verify.ReasonLimits,
			problem: "sub proof 1 (did:web:issuer.example.com/cred-defs/degree) answers no referent of the request"},
	} {
		vec, reg := loadVector(t, tt.file)
		got := (&Verifier{Resolver: reg, AcceptUncheckedRevocation: tt.accept}).Verify(context.Background(), vec.Request, vec.Presentation)
		if got.Verified != vec.want() || got.Verified != (tt.reason == "") {
			t.Errorf("%s: %s: verified %v (%q), want %v (reference %v %s)", tt.file, vec.About, got.Verified, got.Problems, vec.want(), vec.Reference.Verified, vec.Reference.Error)
			continue
		}
		if got.Reason != tt.reason || (tt.problem != "" && !hasProblem(got, tt.problem)) {
			t.Errorf("%s: %+v, want reason %q, problem %q", tt.file, got, tt.reason, tt.problem)
		}
	}
}

// TestHostileSubProofsRefusedBeforeCLMath: a presentation may not carry
// sub proofs that answer no referent, nor revealed values larger than an
// encoding (256 bits and a sign). Both were taken before: 30 extra sub
// proofs, each revealing every attribute with a 4087-bit value, cost some
// 20 times a typical proof before c_hash refused them. Each is refused
// now on its structure, before any CL math: the verdict names no
// credential, so no definition was resolved and no CL proof checked
// (Verify lists credentials as it resolves them). Nothing here is timed.
func TestHostileSubProofsRefusedBeforeCLMath(t *testing.T) {
	reg := loadRegistry(t)
	// Corpus case typical: 2 credentials, both answering referents.
	tc := corpusCaseNamed(t, "typical")
	huge := "1" + strings.Repeat("0", 1230) // 4087 bits
	attrs := []string{"name", "age", "birthdate_dateint", "city", "favouritecolour", "balance"}
	for _, tt := range []struct {
		name     string
		extra    int  // copies of sub proof 0 (without its predicate proof) added, pointed at by nothing
		hostile  bool // the copies reveal every attribute with a 4087-bit value, and have 4087-bit v̂ and m̂2
		hugeCity bool // sub proof 0 reveals city with a 4087-bit value
		reason   string
		problems []string // parts of the verdict's problem
	}{
		{name: "one extra sub proof, honest sizes", extra: 1, reason: verify.ReasonLimits,
			problems: []string{"sub proof 2 (55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default) answers no referent"}},
		{name: "30 extra sub proofs, honest sizes", extra: cl.MaxSubProofs - 2, reason: verify.ReasonLimits,
			problems: []string{"sub proof 2 (55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default) answers no referent"}},
		{name: "30 extra sub proofs, 4087-bit values", extra: cl.MaxSubProofs - 2, hostile: true, reason: verify.ReasonMalformed,
			problems: []string{"proof.proofs[2].eq_proof.revealed_attrs.", ": not a decimal integer of at most 256 bits"}},
		{name: "a used sub proof reveals a 4087-bit value", hugeCity: true, reason: verify.ReasonMalformed,
			problems: []string{"proof.proofs[0].eq_proof.revealed_attrs.city: not a decimal integer of at most 256 bits"}},
	} {
		pres := toMap(t, tc.Presentation)
		proofs := pres["proof"].(map[string]any)["proofs"].([]any)
		ids := pres["identifiers"].([]any)
		for range tt.extra {
			// Without its predicate proof: more predicate proofs than the
			// request asks are refused on their own (TestDeadlineAndWork).
			sp := toMap(t, toJSON(t, proofs[0].(map[string]any)))
			sp["primary_proof"].(map[string]any)["ge_proofs"] = []any{}
			if tt.hostile {
				eq := sp["primary_proof"].(map[string]any)["eq_proof"].(map[string]any)
				rev := map[string]any{}
				for _, a := range attrs {
					rev[a] = huge
				}
				eq["revealed_attrs"] = rev
				eq["m"] = map[string]any{"master_secret": eq["m"].(map[string]any)["master_secret"]}
				eq["v"], eq["m2"] = huge, huge
			}
			proofs = append(proofs, sp)
			ids = append(ids, ids[0])
		}
		if tt.hugeCity {
			eqProof(pres, 0)["revealed_attrs"].(map[string]any)["city"] = huge
		}
		pres["proof"].(map[string]any)["proofs"] = proofs
		pres["identifiers"] = ids
		got := (&Verifier{Resolver: reg}).Verify(context.Background(), tc.Request, toJSON(t, pres))
		if got.Verified || got.Reason != tt.reason || len(got.Problems) != 1 {
			t.Errorf("%s: %+v, want refused, reason %q", tt.name, got, tt.reason)
			continue
		}
		for _, part := range tt.problems {
			if !strings.Contains(got.Problems[0], part) {
				t.Errorf("%s: problem %q, want it to say %q", tt.name, got.Problems[0], part)
			}
		}
		if len(got.Credentials) != 0 {
			t.Errorf("%s: credentials %+v: refused after the registry was asked", tt.name, got.Credentials)
		}
	}
}

// TestRevocationNeedsProofUnlessAccepted: a revocable credential for a
// request with non_revoked and no non-revocation proof is refused unless
// the operator accepts unchecked revocation (revocation_unchecked accept),
// whether or not the presentation names a timestamp: a timestamp alone
// proves nothing.
func TestRevocationNeedsProofUnlessAccepted(t *testing.T) {
	reg := loadRegistry(t)
	tc := corpusCaseNamed(t, "revocation-missing") // non_revoked {from, to: 1700000000}
	for _, tt := range []struct {
		name      string
		timestamp any // nil: none
		accept    bool
		want      bool
	}{
		{"timestamp in the interval, refuse", 1700000000, false, false},
		{"no timestamp, refuse", nil, false, false},
		{"timestamp in the interval, accept", 1700000000, true, true},
		{"no timestamp, accept", nil, true, true},
		{"timestamp outside the interval, accept", 1600000000, true, false},
	} {
		pres := toMap(t, tc.Presentation)
		pres["identifiers"].([]any)[0].(map[string]any)["timestamp"] = tt.timestamp
		got := (&Verifier{Resolver: reg, AcceptUncheckedRevocation: tt.accept}).Verify(context.Background(), tc.Request, toJSON(t, pres))
		if got.Verified != tt.want || got.Revocation != RevocationUnchecked {
			t.Errorf("%s: %+v, want verified %v, revocation unchecked", tt.name, got, tt.want)
		}
		if !got.Verified && got.Reason != verify.ReasonRevocationUnchecked {
			t.Errorf("%s: reason %q", tt.name, got.Reason)
		}
	}
}

// TestCredDefKeyMustFitSchema: the schema a presentation names must have
// exactly the attributes of the credential definition's key (R, less the
// link secret). A legacy definition names its schema by ledger sequence
// number, so nothing else ties the two: a prover could name a smaller
// schema (to meet a schema restriction) and reveal an attribute it lacks.
// The reference refuses that ("Credential doesn't contain requested
// attribute").
func TestCredDefKeyMustFitSchema(t *testing.T) {
	const (
		cid    = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
		person = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
		staff  = "55GkHamhTU1ZbTbV2ab9DE:2:staff:1.0"
		more   = "55GkHamhTU1ZbTbV2ab9DE:2:person-plus:1.0"
	)
	personAttrs := []string{"name", "age", "birthdate_dateint", "city", "Favourite Colour", "balance"}
	for _, tt := range []struct {
		name     string
		schemaID string
		want     bool
		problem  string
	}{
		{"legacy definition, its own schema", person, true, ""},
		{"legacy definition, a schema without the revealed name", staff, false,
			`does not fit schema ` + staff + `: the definition has a key for "name", which the schema lacks`},
		{"legacy definition, a schema with one more attribute", more, false,
			`does not fit schema ` + more + `: the definition has no key for the attribute "nickname"`},
	} {
		reg := loadRegistry(t)
		def := *reg.defs[cid]
		def.SchemaID = "42" // as a legacy Indy ledger writes it
		reg.defs[cid] = &def
		own := *reg.schemas[person]
		own.SeqNo = 42 // its own, so that only the key's fit is in question
		reg.schemas[person] = &own
		reg.schemas[staff] = &Schema{ID: staff, IssuerID: "55GkHamhTU1ZbTbV2ab9DE", Name: "staff", Version: "1.0",
			AttrNames: []string{"age", "birthdate_dateint", "city", "Favourite Colour", "balance"}}
		reg.schemas[more] = &Schema{ID: more, IssuerID: "55GkHamhTU1ZbTbV2ab9DE", Name: "person-plus", Version: "1.0",
			AttrNames: append(append([]string{}, personAttrs...), "nickname")}

		got := verifyUnderSchema(t, reg, tt.schemaID)
		if got.Verified != tt.want || (tt.problem != "" && (got.Reason != verify.ReasonRestriction || !hasProblem(got, tt.problem))) {
			t.Errorf("%s: %+v, want verified %v, problem %q", tt.name, got, tt.want, tt.problem)
		}
	}
}

// verifyUnderSchema verifies corpus case reveal-one (it reveals name)
// with its credential shown under schema schemaID and the request
// restricted to that schema.
func verifyUnderSchema(t *testing.T, reg *mapResolver, schemaID string) Verdict {
	t.Helper()
	return verifyRestricted(t, reg, schemaID, map[string]any{"schema_id": schemaID})
}

// verifyRestricted verifies corpus case reveal-one with its credential
// shown under schema schemaID and the request's referent restricted by
// restriction.
func verifyRestricted(t *testing.T, reg *mapResolver, schemaID string, restriction map[string]any) Verdict {
	t.Helper()
	tc := corpusCaseNamed(t, "reveal-one")
	req := toMap(t, tc.Request)
	req["requested_attributes"].(map[string]any)["r1"].(map[string]any)["restrictions"] = []any{restriction}
	pres := toMap(t, tc.Presentation)
	pres["identifiers"].([]any)[0].(map[string]any)["schema_id"] = schemaID
	return (&Verifier{Resolver: reg}).Verify(context.Background(), toJSON(t, req), toJSON(t, pres))
}

// TestLegacySchemaSeqNo: a legacy definition names its schema by ledger
// sequence number; when the schema's document gives its own (ACA-Py's
// answers do), a presentation naming another schema is refused, even one
// with exactly the definition's attributes. When it gives none (a files
// source's may not), nothing ties the credential to the schema it is
// shown under: a restriction on the schema is not met, saying why, and
// one on the definition alone still is.
func TestLegacySchemaSeqNo(t *testing.T) {
	const (
		cid    = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
		person = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
		twin   = "55GkHamhTU1ZbTbV2ab9DE:2:person-twin:1.0" // the same attributes
	)
	given := map[string]int64{person: 42, twin: 43}
	unconfirmed := func(schemaID string) string {
		return `requested attribute "r1": credential ` + cid + " does not meet its restrictions (its schema cannot be confirmed: the credential definition names its schema by ledger sequence number 42, and the document of schema " + schemaID + " gives no seqNo to compare)"
	}
	for _, tt := range []struct {
		name        string
		schemaID    string
		seqNos      map[string]int64 // schema id → its seqNo (absent: unknown)
		restriction map[string]any   // nil: schema_id of schemaID
		want        string           // the problem; "" for verified
	}{
		{"its own schema, seqNo given", person, given, nil, ""},
		{"another schema with the same attributes, seqNo given", twin, given, nil,
			"credential 0: credential definition " + cid + " is for the schema with ledger sequence number 42; schema " + twin + " has 43"},
		{"another schema with the same attributes, seqNo unknown", twin, nil, nil, unconfirmed(twin)},
		{"another schema by name, seqNo unknown", twin, nil, map[string]any{"schema_name": "person-twin"}, unconfirmed(twin)},
		{"its own schema, seqNo unknown", person, nil, nil, unconfirmed(person)},
		{"its own schema, seqNo unknown, restricted by definition", person, nil, map[string]any{"cred_def_id": cid}, ""},
		{"its own schema, seqNo unknown, restricted by definition and schema", person, nil, map[string]any{"cred_def_id": cid, "schema_id": person}, unconfirmed(person)},
		{"another schema, seqNo unknown, restricted by definition", twin, nil, map[string]any{"cred_def_id": cid}, ""},
	} {
		reg := loadRegistry(t)
		def := *reg.defs[cid]
		def.SchemaID = "42" // as a legacy Indy ledger writes it
		reg.defs[cid] = &def
		own := *reg.schemas[person]
		reg.schemas[person] = &own
		other := own
		other.ID, other.Name = twin, "person-twin"
		reg.schemas[twin] = &other
		for id, n := range tt.seqNos {
			reg.schemas[id].SeqNo = n
		}
		restriction := tt.restriction
		if restriction == nil {
			restriction = map[string]any{"schema_id": tt.schemaID}
		}
		got := verifyRestricted(t, reg, tt.schemaID, restriction)
		if tt.want == "" && !got.Verified {
			t.Errorf("%s: %+v, want verified", tt.name, got)
		}
		if tt.want != "" && (got.Verified || got.Reason != verify.ReasonRestriction || !hasProblem(got, tt.want)) {
			t.Errorf("%s: %+v, want refused: %s", tt.name, got, tt.want)
		}
	}
}
