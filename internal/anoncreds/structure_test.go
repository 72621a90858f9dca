package anoncreds

import (
	"context"
	"testing"
)

// TestNamesReferentOnlyAsRevealedGroup: a names referent asks for the
// group's values; only revealed_attr_groups answers it. The reference
// refuses a restricted one answered otherwise ("Proof does not have
// referent from proof request") but VERIFIES an unrestricted one answered
// as unrevealed or self-attested; proofgate refuses those too (nothing of
// the group would be proven or shown).
func TestNamesReferentOnlyAsRevealedGroup(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "names-group") // grp: name, city, birthdate_dateint from person
	for _, tt := range []struct {
		name        string
		names       []any // nil: the case's
		restricted  bool
		answer      string // "group", "unrevealed" or "self-attested"
		want        bool
		reference   bool // anoncreds 0.2.3's verdict
		wantProblem string
	}{
		{name: "as a group", restricted: true, answer: "group", want: true, reference: true},
		{name: "restricted, unrevealed, names the credential lacks", names: []any{"degree", "year"}, restricted: true, answer: "unrevealed", reference: false,
			wantProblem: `unrevealed attribute "grp": the request asks the group's values`},
		{name: "restricted, unrevealed", restricted: true, answer: "unrevealed", reference: false,
			wantProblem: `unrevealed attribute "grp": the request asks the group's values`},
		{name: "unrestricted, unrevealed", answer: "unrevealed", reference: true,
			wantProblem: `unrevealed attribute "grp": the request asks the group's values`},
		{name: "unrestricted, self-attested", answer: "self-attested", reference: true,
			wantProblem: `self-attested attribute "grp": the request asks the group's values`},
	} {
		req := toMap(t, tc.Request)
		grp := req["requested_attributes"].(map[string]any)["grp"].(map[string]any)
		if tt.names != nil {
			grp["names"] = tt.names
		}
		if !tt.restricted {
			delete(grp, "restrictions")
		}
		pres := toMap(t, tc.Presentation)
		rp := pres["requested_proof"].(map[string]any)
		switch tt.answer {
		case "unrevealed":
			delete(rp["revealed_attr_groups"].(map[string]any), "grp")
			rp["unrevealed_attrs"] = map[string]any{"grp": map[string]any{"sub_proof_index": 0}}
		case "self-attested":
			delete(rp["revealed_attr_groups"].(map[string]any), "grp")
			rp["self_attested_attrs"] = map[string]any{"grp": "Alice"}
		}
		got := v.Verify(context.Background(), toJSON(t, req), toJSON(t, pres))
		if got.Verified != tt.want || (tt.wantProblem != "" && !hasProblem(got, tt.wantProblem)) {
			t.Errorf("%s: %+v, want verified %v (reference %v)", tt.name, got, tt.want, tt.reference)
		}
	}
}

// TestUnrevealedAttributeOfItsCredential: an unrevealed attribute must be
// an attribute of the credential it is pointed at, by that credential's
// schema. An m̂ in the proof is no evidence of it: the prover can add one
// for any name, which is never hashed, so an m̂ for a name outside the
// schema is refused. The reference VERIFIES every row: it neither looks
// at the credential an unrevealed attribute is pointed at nor at m̂
// entries it does not use.
func TestUnrevealedAttributeOfItsCredential(t *testing.T) {
	v := &Verifier{Resolver: loadRegistry(t)}
	tc := corpusCaseNamed(t, "unrevealed") // r1 age unrevealed, r2 name revealed, from person
	for _, tt := range []struct {
		name        string
		r1          string // the attribute r1 asks
		extraM      string // an m̂ added to the proof, "" for none
		want        bool
		wantProblem string
	}{
		{name: "an attribute of the credential", r1: "age", want: true},
		{name: "an attribute the credential lacks", r1: "degree",
			wantProblem: `unrevealed attribute "r1" (degree): credential 0`},
		{name: "an attribute the credential lacks, with an m̂ for it", r1: "degree", extraM: "degree",
			wantProblem: `unrevealed attribute "r1" (degree): credential 0`},
		{name: "an m̂ for a name outside the schema", r1: "age", extraM: "nickname",
			wantProblem: `m̂ for "nickname", which is not an attribute of the credential`},
	} {
		req := toMap(t, tc.Request)
		req["requested_attributes"].(map[string]any)["r1"].(map[string]any)["name"] = tt.r1
		pres := toMap(t, tc.Presentation)
		if tt.extraM != "" {
			eqProof(pres, 0)["m"].(map[string]any)[tt.extraM] = "12345"
		}
		got := v.Verify(context.Background(), toJSON(t, req), toJSON(t, pres))
		if got.Verified != tt.want || (tt.wantProblem != "" && !hasProblem(got, tt.wantProblem)) {
			t.Errorf("%s: %+v, want verified %v, problem %q", tt.name, got, tt.want, tt.wantProblem)
		}
	}
}

// TestNonRevokedPerReferent: every referent a credential answers is held
// to its own non_revoked interval, else to the request's global one, as
// the specification and the reference take them; the credential must
// prove non-revocation for the most stringent of those. Before, a
// referent's own interval made the credential's other referents forget
// the global one (testdata/revocation_global_interval.json).
func TestNonRevokedPerReferent(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	global := &Interval{From: u(100), To: u(200)}
	wide := &Interval{From: u(0), To: u(1000)}
	narrow := &Interval{From: u(150), To: u(160)}
	for _, tt := range []struct {
		name      string
		global    *Interval
		r1, r2, p *Interval // r1, r2: attributes of credential 0; p: its predicate
		r3        *Interval // an attribute of credential 1
		want      interval
		wantAsked bool
	}{
		{name: "no interval anywhere"},
		{name: "global only", global: global, want: interval{100, 200}, wantAsked: true},
		{name: "own only, on one referent", r1: narrow, want: interval{150, 160}, wantAsked: true},
		{name: "own wide on one referent, global on the others", global: global, r1: wide, want: interval{100, 200}, wantAsked: true},
		{name: "own narrow on one referent, global on the others", global: global, r1: narrow, want: interval{150, 160}, wantAsked: true},
		{name: "own on every referent, global unused", global: global, r1: wide, r2: wide, p: wide, want: interval{0, 1000}, wantAsked: true},
		{name: "own on another credential's referent only", r3: narrow},
		{name: "global, own on another credential's referent", global: global, r3: narrow, want: interval{100, 200}, wantAsked: true},
	} {
		req := &Request{
			NonRevoked: tt.global,
			RequestedAttributes: map[string]AttrInfo{
				"r1": {Name: "name", NonRevoked: tt.r1},
				"r2": {Name: "city", NonRevoked: tt.r2},
				"r3": {Name: "degree", NonRevoked: tt.r3},
			},
			RequestedPredicates: map[string]PredInfo{"p": {Name: "age", PType: ">=", PValue: 18, NonRevoked: tt.p}},
		}
		pres := &Presentation{Identifiers: make([]Identifier, 2)}
		rp := &pres.RequestedProof
		rp.RevealedAttrs = map[string]RevealedAttr{"r1": {SubProofIndex: 0}, "r3": {SubProofIndex: 1}}
		rp.UnrevealedAttrs = map[string]SubProofRef{"r2": {SubProofIndex: 0}}
		rp.Predicates = map[string]SubProofRef{"p": {SubProofIndex: 0}}
		iv, asked := nonRevokedFor(req, pres, 0)
		if asked != tt.wantAsked || (asked && iv != tt.want) {
			t.Errorf("%s: %+v asked %v, want %+v asked %v", tt.name, iv, asked, tt.want, tt.wantAsked)
		}
	}
}
