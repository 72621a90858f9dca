package pexcheck

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/textcut"
	"github.com/proofgate/proofgate/internal/verify/jwtvc"
	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// The definition's format (DIF Presentation Exchange 2.x "format", on the
// definition and on each input descriptor; keys from the DIF Claim Format
// Registry) says in which claim formats, and with which JWS algorithms
// (alg) or proof types (proof_type, and for Data Integrity cryptosuite),
// the verifier takes an answer. The structural check holds a presentation
// to it; the signatures are verified after, under the very alg and proofs
// judged here.
//
// Each key designates a credential (jwt_vc, ldp_vc, di_vc), a
// presentation (jwt_vp, ldp_vp, di_vp) or either (jwt, ldp, di). A format
// constrains only the levels its keys designate, as definitions are
// written: with *_vc keys alone for Credo (it reads format.ldp_vc and
// format.jwt_vc, and signs its ldp_vp with the first suite of its key,
// Ed25519Signature2018, whatever ldp_vc lists), or with ldp_vp for ACA-Py
// (as a holder it refuses a format without ldp_vp, and labels every
// credential ldp_vc). Reading one level's keys for the other would refuse
// what each agent answers to the definitions written for it.

// level is what a claim format designates.
type level int

const (
	levelAny level = iota // jwt, ldp, di: credentials and presentations
	levelVC
	levelVP
)

// claimFormat is a designation the local verifier reads: its family (jwt:
// a compact JWS, a string; ldp and di: a JSON object with embedded
// proofs) and the level it designates.
type claimFormat struct {
	family string
	level  level
}

var claimFormats = map[string]claimFormat{
	"jwt": {"jwt", levelAny}, "jwt_vc": {"jwt", levelVC}, "jwt_vp": {"jwt", levelVP},
	"ldp": {"ldp", levelAny}, "ldp_vc": {"ldp", levelVC}, "ldp_vp": {"ldp", levelVP},
	"di": {"di", levelAny}, "di_vc": {"di", levelVC}, "di_vp": {"di", levelVP},
}

// claimFormatNames lists claimFormats, sorted, for messages.
var claimFormatNames = func() string {
	names := make([]string, 0, len(claimFormats))
	for n := range claimFormats {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}()

// formatParams are one format's parameters, as a definition writes them
// (validated against the DIF schema at create time).
type formatParams struct {
	Alg         []string `json:"alg"`
	ProofType   []string `json:"proof_type"`
	Cryptosuite []string `json:"cryptosuite"`
}

// formatRule is one format of a definition, its lists also as sets so
// that judging a presentation costs no more than its proofs (nil: any
// value).
type formatRule struct {
	name string
	claimFormat
	params                      formatParams
	alg, proofType, cryptosuite map[string]bool
}

// formatSet is a definition's or an input descriptor's format, its rules
// sorted by name; empty when no format is given. A key the local
// verifier does not read is left out: the DIF schema validation at create
// time admits none (mso_mdoc, ac_vc, vc+sd-jwt are refused there).
type formatSet []formatRule

func parseFormats(f map[string]formatParams) formatSet {
	var fs formatSet
	for name, p := range f {
		cf, ok := claimFormats[name]
		if !ok {
			continue
		}
		fs = append(fs, formatRule{name: name, claimFormat: cf, params: p,
			alg: setOf(p.Alg), proofType: setOf(p.ProofType), cryptosuite: setOf(p.Cryptosuite)})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	return fs
}

func setOf(list []string) map[string]bool {
	if list == nil {
		return nil
	}
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// at is the rules that apply at lv.
func (fs formatSet) at(lv level) formatSet {
	var out formatSet
	for _, r := range fs {
		if r.level == levelAny || r.level == lv {
			out = append(out, r)
		}
	}
	return out
}

func (fs formatSet) names() string {
	names := make([]string, len(fs))
	for i, r := range fs {
		names[i] = r.name
	}
	return strings.Join(names, ", ")
}

func (fs formatSet) describe() string {
	parts := make([]string, len(fs))
	for i, r := range fs {
		parts[i] = r.describe()
	}
	return strings.Join(parts, " or ")
}

// describe says what r accepts, e.g. "jwt_vc alg EdDSA, ES256".
func (r formatRule) describe() string {
	s := r.name
	for _, p := range []struct {
		name string
		list []string
	}{{"alg", r.params.Alg}, {"proof_type", r.params.ProofType}, {"cryptosuite", r.params.Cryptosuite}} {
		if p.list != nil {
			s += " " + p.name + " " + listText(p.list)
		}
	}
	return s
}

// listText shows the first few entries of a definition's list.
func listText(list []string) string {
	const shown = 8
	parts := make([]string, 0, shown+1)
	for i, s := range list {
		if i == shown {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, textcut.Prefix(s, 60))
	}
	return strings.Join(parts, ", ")
}

// shape is what a credential or presentation is, as its format is judged:
// a JWT and its header's alg, or a JSON object and its proofs.
type shape struct {
	jwt    bool
	alg    string
	proofs []proofKind
}

type proofKind struct{ typ, cryptosuite string }

// objectShape reads the proofs of a JSON-LD credential or presentation:
// at most ldp.MaxProofs, as the verifier refuses a document with more.
func objectShape(doc map[string]any) shape {
	var s shape
	add := func(p any) {
		if m, ok := p.(map[string]any); ok {
			typ, _ := m["type"].(string)
			cs, _ := m["cryptosuite"].(string)
			s.proofs = append(s.proofs, proofKind{typ, cs})
		}
	}
	switch p := doc["proof"].(type) {
	case []any:
		for _, e := range p[:min(len(p), ldp.MaxProofs)] {
			add(e)
		}
	default:
		add(p)
	}
	return s
}

func (s shape) String() string {
	if s.jwt {
		return fmt.Sprintf("a JWT with alg %q", textcut.Prefix(s.alg, 40))
	}
	if len(s.proofs) == 0 {
		return "a JSON object without a proof"
	}
	parts := make([]string, len(s.proofs))
	for i, p := range s.proofs {
		parts[i] = fmt.Sprintf("%q", textcut.Prefix(p.typ, 60))
		if p.cryptosuite != "" {
			parts[i] += fmt.Sprintf(" (%q)", textcut.Prefix(p.cryptosuite, 60))
		}
	}
	return "a JSON object with proofs of type " + strings.Join(parts, ", ")
}

// accepts reports whether a value of shape s meets r: its family, and
// the alg of a JWT or, for an object, one proof whose type and
// cryptosuite r lists. One is enough: the verifier verifies every proof
// of a document (a proof set must verify whole, internal/verify/ldp), so
// the document is signed in the format r names. A DataIntegrityProof
// meets a proof_type that lists DataIntegrityProof, as the registry and
// Sphereon PEX (Credo) name it; a cryptosuite name in proof_type is not a
// proof type and meets nothing (di formats list cryptosuites apart).
func (r formatRule) accepts(s shape) bool {
	if (r.family == "jwt") != s.jwt {
		return false
	}
	if s.jwt {
		return r.alg == nil || r.alg[s.alg]
	}
	if r.proofType == nil && r.cryptosuite == nil {
		return true
	}
	for _, p := range s.proofs {
		if r.acceptsProof(p) {
			return true
		}
	}
	return false
}

func (r formatRule) acceptsProof(p proofKind) bool {
	return (r.proofType == nil || r.proofType[p.typ]) && (r.cryptosuite == nil || r.cryptosuite[p.cryptosuite])
}

// kindText says what a value at lv of shape s is, and its formats.
func kindText(lv level, s shape) string {
	switch {
	case lv == levelVC && s.jwt:
		return "the credential it names is a JWT (jwt_vc)"
	case lv == levelVC:
		return "the credential it names is a JSON object with embedded proofs (ldp_vc or di_vc)"
	case s.jwt:
		return "with path_nested it names the presentation, a JWT (jwt_vp)"
	default:
		return "with path_nested it names the presentation, a JSON object with embedded proofs (ldp_vp or di_vp)"
	}
}

// levelFormatProblem judges one level of a descriptor_map entry (at
// where): its format names a claim format the local verifier reads, of
// the level the entry is at (the credential, or with path_nested the
// presentation) and of what the value is (s), and one that allowed
// accepts at that level, parameters included, when it names any there.
func levelFormatProblem(where, format string, lv level, s shape, allowed formatSet, whose string) string {
	if format == "" {
		return fmt.Sprintf("%s.format is missing: %s", where, kindText(lv, s))
	}
	cf, ok := claimFormats[format]
	if !ok {
		return fmt.Sprintf("%s.format %q is not a claim format the local verifier reads (%s)", where, textcut.Prefix(format, 40), claimFormatNames)
	}
	if cf.level != levelAny && cf.level != lv || (cf.family == "jwt") != s.jwt {
		return fmt.Sprintf("%s.format is %q, but %s", where, format, kindText(lv, s))
	}
	rules := allowed.at(lv)
	if len(rules) == 0 {
		return ""
	}
	var family formatSet
	for _, r := range rules {
		if r.family == cf.family {
			family = append(family, r)
		}
	}
	levelName := map[level]string{levelVC: "a credential", levelVP: "a presentation"}[lv]
	if len(family) == 0 {
		return fmt.Sprintf("%s.format is %q, which %s does not accept for %s (it accepts %s)", where, format, whose, levelName, rules.names())
	}
	for _, r := range family {
		if r.accepts(s) {
			return ""
		}
	}
	return fmt.Sprintf("%s names %s that is %s; %s accepts %s", where, levelName, s, whose, family.describe())
}

// entryFormatProblem judges every level of a descriptor_map entry: the
// outer ones (with path_nested) name the presentation, the innermost the
// credential. An outer level is held here only to the input descriptor's
// own format: the definition's is held to the presentation itself, once
// (presentationFormatProblem), not again for each entry.
func entryFormatProblem(m peMapping, where string, d *peDescriptor, cred, pres shape) string {
	var outer formatSet
	if d.ownFormat {
		outer = d.allowed
	}
	for depth := 0; depth <= maxNesting && m.PathNested != nil; depth++ {
		if p := levelFormatProblem(where, m.Format, levelVP, pres, outer, d.whose); p != "" {
			return p
		}
		m, where = *m.PathNested, where+".path_nested"
	}
	return levelFormatProblem(where, m.Format, levelVC, cred, d.allowed, d.whose)
}

// presentationFormatProblem judges the presentation itself against the
// definition's format. A format that names no presentation key (only
// *_vc keys, as Credo's definitions are written) leaves the presentation
// free: Credo signs its ldp_vp with the first suite of its key whatever
// format.ldp_vc lists.
func presentationFormatProblem(def formatSet, pres shape) string {
	rules := def.at(levelVP)
	if len(rules) == 0 {
		return ""
	}
	for _, r := range rules {
		if r.accepts(pres) {
			return ""
		}
	}
	return fmt.Sprintf("the presentation is %s; the definition's format accepts %s", pres, rules.describe())
}

// supportedProofs are the proof types and cryptosuites internal/verify/ldp
// verifies; supportedText says them, and jwtvc.Algorithms, for messages.
var supportedProofs, supportedText = func() ([]proofKind, string) {
	var kinds []proofKind
	var types, suites []string
	for _, s := range ldp.Supported() {
		typ, cs, _ := strings.Cut(s, "/")
		kinds = append(kinds, proofKind{typ, cs})
		if cs != "" {
			suites = append(suites, cs)
		} else {
			types = append(types, typ)
		}
	}
	algs := make([]string, len(jwtvc.Algorithms))
	for i, a := range jwtvc.Algorithms {
		algs[i] = string(a)
	}
	return kinds, fmt.Sprintf("jwt formats with alg %s, and ldp and di formats with proof_type %s or %s (cryptosuite %s)",
		orList(algs), strings.Join(types, ", "), ldp.DataIntegrityProof, orList(suites))
}()

// orList says "a, b or c".
func orList(l []string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " or " + l[len(l)-1]
}

// verifiable reports whether an answer in r is one the local verifier can
// verify, and if not, which parameter rules it out.
func (r formatRule) verifiable() (bool, string) {
	if r.family == "jwt" {
		for _, a := range jwtvc.Algorithms {
			if r.alg == nil || r.alg[string(a)] {
				return true, ""
			}
		}
		return false, "alg"
	}
	typed := false
	for _, p := range supportedProofs {
		if r.proofType == nil || r.proofType[p.typ] {
			typed = true
			if r.acceptsProof(p) {
				return true, ""
			}
		}
	}
	if !typed {
		return false, "proof_type"
	}
	return false, "cryptosuite"
}

// UnverifiableFormat names every format of req's presentation definition
// (the definition's, then each input descriptor's) that, at a level it
// constrains (credentials, the presentation), admits no answer the local
// verifier (internal/verify) can verify: a record of it could never be
// verified, so internal/proofs refuses the create (400 naming the field).
// A format with one verifiable key at each level is accepted: the holder
// can answer in it. The definition is one create-time validation
// accepted; one that cannot be read yields nothing.
func UnverifiableFormat(req *backend.OOBRequest) []backend.UnsupportedError {
	var d struct {
		Format           map[string]formatParams `json:"format"`
		InputDescriptors []struct {
			Format map[string]formatParams `json:"format"`
		} `json:"input_descriptors"`
	}
	if json.Unmarshal(req.PresentationDefinition, &d) != nil {
		return nil // validated at create time; nothing to add here
	}
	var out []backend.UnsupportedError
	if u := unverifiable(parseFormats(d.Format), req.DefinitionField("format")); u != nil {
		out = append(out, *u)
	}
	for i, in := range d.InputDescriptors {
		if u := unverifiable(parseFormats(in.Format), req.DescriptorField(i, "format")); u != nil {
			out = append(out, *u)
		}
	}
	return out
}

func unverifiable(fs formatSet, at string) *backend.UnsupportedError {
	for _, lv := range []level{levelVC, levelVP} {
		rules := fs.at(lv)
		if len(rules) == 0 {
			continue
		}
		param := ""
		for _, r := range rules {
			ok, p := r.verifiable()
			if ok {
				param = ""
				break
			}
			param = p
		}
		if param == "" {
			continue
		}
		field := at
		if len(rules) == 1 {
			field = backend.Key(backend.Key(at, rules[0].name), param)
		}
		what := map[level]string{levelVC: "credential", levelVP: "presentation"}[lv]
		return &backend.UnsupportedError{Field: field,
			Message: fmt.Sprintf("admits no %s the local verifier can verify (%s); it verifies %s", what, rules.describe(), supportedText)}
	}
	return nil
}
