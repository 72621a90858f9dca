package proofs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/proofgate/proofgate/internal/jsonpath"
	"github.com/proofgate/proofgate/internal/pefilter"
)

// maxNesting bounds submission_requirements and path_nested recursion.
const maxNesting = 8

type peField struct {
	Path     []string        `json:"path"`
	Filter   json.RawMessage `json:"filter"`
	Optional bool            `json:"optional"`
}

type peDescriptor struct {
	ID          string   `json:"id"`
	Group       []string `json:"group"`
	Constraints *struct {
		Fields []peField `json:"fields"`
	} `json:"constraints"`
}

type peRequirement struct {
	Name       string          `json:"name"`
	Rule       string          `json:"rule"`
	From       string          `json:"from"`
	FromNested []peRequirement `json:"from_nested"`
	Count      *int            `json:"count"`
	Min        *int            `json:"min"`
	Max        *int            `json:"max"`
}

type peDefinition struct {
	ID                     string          `json:"id"`
	InputDescriptors       []peDescriptor  `json:"input_descriptors"`
	SubmissionRequirements []peRequirement `json:"submission_requirements"`
}

type peMapping struct {
	ID         string     `json:"id"`
	Format     string     `json:"format"`
	Path       string     `json:"path"`
	PathNested *peMapping `json:"path_nested"`
}

// checkSubmission checks a DIF presentation (a verifiable presentation with an
// embedded presentation_submission, as Credo and ACA-Py send for ldp_vp)
// against our definitions@v1.0 request.
// asSigned rewrites a JSON-LD presentation's numbers as the proofs sign
// them: the verifier decodes them as IEEE doubles (so do JCS and the RDF
// canonicalization), and a filter reading the exact text would see
// digits no proof covers ("creditScore": 700.00000000000001 is the
// signed 700, yet above 700). What cannot be decoded is left as it is
// (the verifier refuses it).
func asSigned(raw []byte) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

func checkSubmission(reqRaw, presRaw []byte, challenge, domain string) []string {
	var req struct {
		PresentationDefinition peDefinition `json:"presentation_definition"`
	}
	if err := json.Unmarshal(reqRaw, &req); err != nil {
		return []string{"the stored presentation definition cannot be read"}
	}
	def := req.PresentationDefinition
	// A JSON-LD presentation (ldp_vp) is an object; a JWT one (jwt_vp) a
	// string whose payload is read here unverified.
	var vp map[string]any
	isJWT := false
	if t := bytes.TrimSpace(presRaw); len(t) > 0 && t[0] == '"' {
		var token string
		if err := json.Unmarshal(t, &token); err != nil {
			return []string{"the presentation is neither a JSON object nor a JWT"}
		}
		payload, problem := jwtPayload(token)
		if problem != "" {
			return []string{"the presentation " + problem}
		}
		vp, isJWT = payload, true
	} else {
		vpAny, err := jsonschema.UnmarshalJSON(bytes.NewReader(asSigned(presRaw)))
		m, ok := vpAny.(map[string]any)
		if err != nil || !ok {
			return []string{"the presentation is not a JSON object"}
		}
		vp = m
	}
	submission := vp["presentation_submission"]
	if inner, ok := vp["vp"].(map[string]any); isJWT && submission == nil && ok {
		submission = inner["presentation_submission"] // in the vp claim
	}
	var sub struct {
		DefinitionID  string      `json:"definition_id"`
		DescriptorMap []peMapping `json:"descriptor_map"`
	}
	raw, _ := json.Marshal(submission)
	if submission == nil || json.Unmarshal(raw, &sub) != nil {
		return []string{"the presentation has no presentation_submission"}
	}

	if len(sub.DescriptorMap) > MaxDescriptorMap {
		return []string{fmt.Sprintf("presentation_submission.descriptor_map has %d entries; at most %d are taken", len(sub.DescriptorMap), MaxDescriptorMap)}
	}
	// One budget for every field path of this presentation.
	budget := jsonpath.NewBudget(MaxPathVisits, MaxPathResults, time.Now().Add(PathTimeout))

	var problems []string
	if sub.DefinitionID != def.ID {
		problems = append(problems, fmt.Sprintf("presentation_submission.definition_id is %q, not the requested %q", sub.DefinitionID, def.ID))
	}
	byID := map[string]*peDescriptor{}
	for i := range def.InputDescriptors {
		byID[def.InputDescriptors[i].ID] = &def.InputDescriptors[i]
	}
	submitted := map[string]bool{}
	sel := selection{
		// Each JWT credential is decoded once, however many entries name
		// it: the decoding then costs at most the presentation's own size.
		jwts:  map[string]decodedJWT{},
		creds: listedCredentials(vp, isJWT),
	}
	for i, m := range sub.DescriptorMap {
		d, known := byID[m.ID]
		if !known {
			problems = append(problems, fmt.Sprintf("descriptor_map[%d] names %q, which is not an input descriptor of the request", i, m.ID))
			continue
		}
		cred, problem := selectCredential(vp, m, fmt.Sprintf("descriptor_map[%d]", i), 0, &sel)
		if problem != "" {
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s", m.ID, problem))
			continue
		}
		if fp := fieldProblems(d, cred, budget); len(fp) > 0 {
			problems = append(problems, fp...)
			continue
		}
		submitted[m.ID] = true
	}

	if len(def.SubmissionRequirements) == 0 {
		for _, d := range def.InputDescriptors {
			if !submitted[d.ID] && !mapped(sub.DescriptorMap, d.ID) {
				problems = append(problems, fmt.Sprintf("input descriptor %q is not in presentation_submission.descriptor_map", d.ID))
			}
		}
	} else {
		groups := map[string][]string{}
		for _, d := range def.InputDescriptors {
			for _, g := range d.Group {
				groups[g] = append(groups[g], d.ID)
			}
		}
		for i, r := range def.SubmissionRequirements {
			if !requirementMet(r, groups, submitted, 0) {
				name := r.Name
				if name == "" {
					name = fmt.Sprintf("#%d", i)
				}
				problems = append(problems, fmt.Sprintf("submission requirement %s (%s) is not met", name, describeRequirement(r)))
			}
		}
	}
	if isJWT {
		return append(problems, jwtBindingProblems(vp, challenge, domain)...)
	}
	return append(problems, proofProblems(vp["proof"], challenge, domain)...)
}

func mapped(m []peMapping, id string) bool {
	for _, e := range m {
		if e.ID == id {
			return true
		}
	}
	return false
}

// selection is what selectCredential needs of the whole presentation.
type selection struct {
	// creds are the presentation's verifiableCredential entries: the
	// credentials a verifier checks, so the only ones an entry may name.
	creds []any
	// jwts are the JWT credentials decoded so far.
	jwts map[string]decodedJWT
}

// listedCredentials are the entries of a presentation's
// verifiableCredential (in the vp claim of a JWT presentation): one value
// or an array.
func listedCredentials(vp map[string]any, isJWT bool) []any {
	holder := vp
	if inner, ok := vp["vp"].(map[string]any); isJWT && ok {
		holder = inner
	}
	switch c := holder["verifiableCredential"].(type) {
	case nil:
		return nil
	case []any:
		return c
	default:
		return []any{c}
	}
}

// listed reports whether v is one of creds: the very object (not an equal
// copy elsewhere in the presentation), or a JWT equal to a listed one.
func listed(v any, creds []any) bool {
	for _, c := range creds {
		switch x := v.(type) {
		case map[string]any:
			if m, ok := c.(map[string]any); ok && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(x).UnsafePointer() {
				return true
			}
		case string:
			if s, ok := c.(string); ok && s == x {
				return true
			}
		}
	}
	return false
}

// decodedJWT is a JWT credential as selectCredential reads it: its
// claims, with the vc claim's members beside them, or why it cannot be
// read (a text that follows "selects a string that").
type decodedJWT struct {
	cred    map[string]any
	problem string
}

// selectCredential follows a descriptor_map entry (and its path_nested)
// to the credential it names. Its paths are the prover's and must be
// plain (jsonpath.ParsePlain): one step per segment, one value. What it
// names must be one of the presentation's verifiableCredential entries:
// a verifier checks those, and a credential elsewhere (under a key the
// prover's context maps anywhere, or in a JCS-signed document) would
// answer the request unchecked. JWT credentials are decoded once each.
func selectCredential(root any, m peMapping, where string, depth int, sel *selection) (map[string]any, string) {
	if depth > maxNesting {
		return nil, "path_nested is nested too deep"
	}
	p, err := jsonpath.ParsePlain(m.Path)
	if err != nil {
		return nil, fmt.Sprintf("%s.path %q is not a plain JSONPath ($ followed by .name, ['name'] or [index] steps, at most %d characters): %v",
			where, truncate(m.Path, 80), jsonpath.MaxPlainLength, err)
	}
	// A plain path selects at most one value in len(path) steps.
	vals, err := p.Get(root, jsonpath.NewBudget(jsonpath.MaxPlainLength+1, 1, time.Time{}))
	if err != nil {
		return nil, fmt.Sprintf("%s.path %q: %v", where, m.Path, err)
	}
	if len(vals) == 0 {
		return nil, fmt.Sprintf("path %q selects nothing in the presentation", m.Path)
	}
	if m.PathNested != nil {
		return selectCredential(vals[0], *m.PathNested, where+".path_nested", depth+1, sel)
	}
	if !listed(vals[0], sel.creds) {
		return nil, fmt.Sprintf("path %q selects a value that is not one of the presentation's verifiableCredential entries", m.Path)
	}
	switch c := vals[0].(type) {
	case map[string]any:
		return c, ""
	case string:
		d, ok := sel.jwts[c]
		if !ok {
			d = decodeJWTCredential(c)
			sel.jwts[c] = d
		}
		if d.problem != "" {
			return nil, fmt.Sprintf("path %q selects a string that %s", m.Path, d.problem)
		}
		return d.cred, ""
	default:
		return nil, fmt.Sprintf("path %q does not select a credential (an object or a JWT)", m.Path)
	}
}

// decodeJWTCredential reads a jwt_vc: its payload (vc claim inside) is
// what fields are read from; the verifier checks its signature.
func decodeJWTCredential(token string) decodedJWT {
	payload, problem := jwtPayload(token)
	if problem != "" {
		return decodedJWT{problem: problem}
	}
	vc, ok := payload["vc"].(map[string]any)
	if !ok {
		return decodedJWT{cred: payload}
	}
	merged := make(map[string]any, len(vc)+len(payload))
	for k, v := range vc {
		merged[k] = v
	}
	for k, v := range payload {
		merged[k] = v // $.vc.… paths work too
	}
	return decodedJWT{cred: merged}
}

// signsMeaning reports whether cred is a JSON-LD credential whose proofs
// sign its canonical RDF (every Data Integrity suite but the JCS ones,
// and the older signature suites), in which its arrays are sets: their
// order is the holder's to choose. A JWT credential's claims (no proof
// member) and a JCS-signed one have their order signed.
func signsMeaning(cred map[string]any) bool {
	var proofs []any
	switch p := cred["proof"].(type) {
	case map[string]any:
		proofs = []any{p}
	case []any:
		proofs = p
	default:
		return false
	}
	for _, p := range proofs {
		m, _ := p.(map[string]any)
		suite, _ := m["cryptosuite"].(string)
		if !strings.Contains(suite, "jcs") {
			return true
		}
	}
	return false
}

// fieldProblems checks the required constraints.fields of d against cred:
// one of each field's paths must select a value, and when the field has a
// filter, some selected value must satisfy it. The paths are the
// definition's, held to jsonpath's cost bound when it was created, and run
// on the presentation's budget.
func fieldProblems(d *peDescriptor, cred map[string]any, budget *jsonpath.Budget) []string {
	if d.Constraints == nil {
		return nil
	}
	var problems []string
	unordered := signsMeaning(cred)
	for _, f := range d.Constraints.Fields {
		if f.Optional || len(f.Path) == 0 {
			continue
		}
		var filter *pefilter.Filter
		if len(f.Filter) > 0 {
			var err error
			if filter, err = pefilter.CompileJSON(f.Filter); err != nil {
				problems = append(problems, fmt.Sprintf("input descriptor %q: the filter of field %s does not compile", d.ID, f.Path[0]))
				continue
			}
		}
		found, matched, positional := false, false, ""
		var limit error
		for _, p := range f.Path {
			path, err := jsonpath.Compile(p)
			if err != nil {
				continue // a record from before the cost bound
			}
			if unordered && path.ReadsPosition() {
				positional = p // the order it reads is the holder's
				continue
			}
			vals, err := path.Get(cred, budget)
			if err != nil {
				limit = err
				break
			}
			for _, v := range vals {
				found = true
				if filter == nil || filter.Match(v) {
					matched = true
				}
			}
			if matched {
				break
			}
		}
		switch {
		case limit != nil && !matched:
			problems = append(problems, fmt.Sprintf("input descriptor %q: evaluating %s exceeded the verifier's work limit (%v)", d.ID, f.Path[0], limit))
		case !found && positional != "":
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s reads a position in an array, whose order the credential's proof does not sign (a JSON-LD array is a set); select by value, e.g. with a filter", d.ID, truncate(positional, 80)))
		case !found:
			problems = append(problems, fmt.Sprintf("input descriptor %q: the credential has no %s", d.ID, f.Path[0]))
		case !matched:
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s does not match the filter", d.ID, f.Path[0]))
		}
	}
	return problems
}

// requirementMet evaluates a submission requirement: "all" needs every
// descriptor of its group (or every nested requirement), "pick" at least
// count and min, at most max. A submission that gives more than count is
// accepted: over-sharing is the holder's choice, not a failure to answer.
func requirementMet(r peRequirement, groups map[string][]string, submitted map[string]bool, depth int) bool {
	if depth > maxNesting {
		return false
	}
	n, total := 0, 0
	if r.From != "" {
		for _, id := range groups[r.From] {
			total++
			if submitted[id] {
				n++
			}
		}
	} else {
		for _, nested := range r.FromNested {
			total++
			if requirementMet(nested, groups, submitted, depth+1) {
				n++
			}
		}
	}
	switch r.Rule {
	case "all":
		return total > 0 && n == total
	case "pick":
		if r.Count != nil && n < *r.Count {
			return false
		}
		if r.Min != nil && n < *r.Min {
			return false
		}
		if r.Max != nil && n > *r.Max {
			return false
		}
		return n > 0 || (r.Count != nil && *r.Count == 0) || (r.Min != nil && *r.Min == 0)
	default:
		return false
	}
}

func describeRequirement(r peRequirement) string {
	from := "group " + r.From
	if r.From == "" {
		from = fmt.Sprintf("%d nested requirements", len(r.FromNested))
	}
	s := r.Rule + " from " + from
	if r.Count != nil {
		s += fmt.Sprintf(", count %d", *r.Count)
	}
	if r.Min != nil {
		s += fmt.Sprintf(", min %d", *r.Min)
	}
	if r.Max != nil {
		s += fmt.Sprintf(", max %d", *r.Max)
	}
	return s
}

// proofProblems checks that some proof of the presentation is bound to
// this request: its challenge is ours, and its domain, when it has one and
// we set one, is ours. The proof's signature is not verified.
func proofProblems(proof any, challenge, domain string) []string {
	var proofs []map[string]any
	switch p := proof.(type) {
	case map[string]any:
		proofs = append(proofs, p)
	case []any:
		for _, e := range p {
			if m, ok := e.(map[string]any); ok {
				proofs = append(proofs, m)
			}
		}
	}
	if len(proofs) == 0 {
		return []string{"the presentation has no proof"}
	}
	challenged := false
	for _, p := range proofs {
		if c, _ := p["challenge"].(string); c != challenge {
			continue
		}
		challenged = true
		// A proof without a domain is taken here (ACA-Py signs none); the
		// verifier's require_domain decides. Another domain never is.
		if d, has := p["domain"].(string); domain == "" || !has || d == domain {
			return nil
		}
	}
	if !challenged {
		return []string{"the presentation's proof does not carry the request's challenge"}
	}
	return []string{fmt.Sprintf("the presentation's proof does not carry the request's domain %q", domain)}
}
