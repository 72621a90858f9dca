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

// The presentations of testdata/ (mostly made by gen_presentations.py),
// each with the reference's verdict on it.

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
