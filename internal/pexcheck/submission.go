// Package pexcheck is the structural check of a DIF Presentation
// Exchange answer: whether a presentation (a verifiable presentation
// with an embedded presentation_submission, JSON-LD or a JWT) answers
// the presentation definition of a request, read without verifying any
// signature. A backend checks with it before (or besides) the
// verification of the signatures; its work is bounded (limits.go).
package pexcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/proofgate/proofgate/internal/pefilter"
	"github.com/proofgate/proofgate/internal/textcut"
)

// maxNesting bounds submission_requirements and path_nested recursion.
const maxNesting = 8

type peField struct {
	Path     []string        `json:"path"`
	Filter   json.RawMessage `json:"filter"`
	Optional bool            `json:"optional"`
}

type peDescriptor struct {
	ID          string                  `json:"id"`
	Group       []string                `json:"group"`
	Format      map[string]formatParams `json:"format"`
	Constraints *struct {
		Fields []peField `json:"fields"`
	} `json:"constraints"`

	// allowed is the format its credential is judged by: its own when it
	// has one (ownFormat), else the definition's; an empty "{}" names no
	// format, and is no format. whose says which, for messages.
	allowed   formatSet
	ownFormat bool
	whose     string
	// filters are its fields' filters, compiled once per presentation
	// (compiledFilters).
	filters []compiledFilter
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
	ID                     string                  `json:"id"`
	Format                 map[string]formatParams `json:"format"`
	InputDescriptors       []peDescriptor          `json:"input_descriptors"`
	SubmissionRequirements []peRequirement         `json:"submission_requirements"`
}

type peMapping struct {
	ID         string     `json:"id"`
	Format     string     `json:"format"`
	Path       string     `json:"path"`
	PathNested *peMapping `json:"path_nested"`
}

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

// Check tells what a DIF presentation (a verifiable presentation with an
// embedded presentation_submission, as Credo and ACA-Py send for ldp_vp)
// lacks to answer our definitions@v1.0 request; nil (or empty) means it
// answers it. It checks the definition id, what each descriptor_map
// entry selects, in which claim format (the definition's and the input
// descriptors' format, format.go), the fields, the submission
// requirements, and the binding of its proof to challenge and domain.
// No signature is verified: the format's verifier does that after.
//
// request is the DIF request attachment,
// {"presentation_definition":…,"options":…}; presentation is the
// presentation: a JSON object (ldp_vp), or a JSON string holding a
// compact JWT (jwt_vp). The caller measures presentation before
// (jsonlimit.Problem), as it is decoded whole; the JWT payloads inside
// are measured here.
func Check(request, presentation []byte, challenge, domain string) []string {
	var req struct {
		PresentationDefinition peDefinition `json:"presentation_definition"`
	}
	if err := json.Unmarshal(request, &req); err != nil {
		return []string{"the stored presentation definition cannot be read"}
	}
	def := req.PresentationDefinition
	// A JSON-LD presentation (ldp_vp) is an object; a JWT one (jwt_vp) a
	// string whose payload is read here unverified.
	var vp map[string]any
	var presShape shape // for the definition's format
	isJWT := false
	if t := bytes.TrimSpace(presentation); len(t) > 0 && t[0] == '"' {
		var token string
		if err := json.Unmarshal(t, &token); err != nil {
			return []string{"the presentation is neither a JSON object nor a JWT"}
		}
		payload, problem := jwtPayload(token)
		if problem != "" {
			return []string{"the presentation " + problem}
		}
		vp, isJWT = payload, true
		presShape = shape{jwt: true, alg: jwtHeaderAlg(token)}
	} else {
		vpAny, err := jsonschema.UnmarshalJSON(bytes.NewReader(asSigned(presentation)))
		m, ok := vpAny.(map[string]any)
		if err != nil || !ok {
			return []string{"the presentation is not a JSON object"}
		}
		vp = m
		presShape = objectShape(vp)
	}
	// Before any filter reads them (a JWT credential's are checked when it
	// is decoded).
	if err := pefilter.CheckNumbers(vp); err != nil {
		return []string{"the presentation " + numberProblem(err)}
	}
	// A JWT presentation's vp claim holds the presentation proper.
	var vpClaim map[string]any
	if isJWT {
		vpClaim, _ = vp["vp"].(map[string]any)
	}
	submission := vp["presentation_submission"]
	if submission == nil && vpClaim != nil {
		submission = vpClaim["presentation_submission"] // in the vp claim
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
	// One budget for every field path and filter of this presentation.
	work := newFieldWork(time.Now())

	var problems []string
	if sub.DefinitionID != def.ID {
		problems = append(problems, fmt.Sprintf("presentation_submission.definition_id is %q, not the requested %q", sub.DefinitionID, def.ID))
	}
	// The formats are read once per presentation, their lists as sets:
	// judging an entry then costs what its credential's proofs do.
	defFormats := parseFormats(def.Format)
	byID := map[string]*peDescriptor{}
	for i := range def.InputDescriptors {
		d := &def.InputDescriptors[i]
		d.allowed, d.whose = defFormats, "the definition's format"
		if len(d.Format) > 0 {
			d.allowed, d.ownFormat, d.whose = parseFormats(d.Format), true, "the input descriptor's format"
		}
		byID[d.ID] = d
	}
	submitted := map[string]bool{}
	// Each descriptor is judged once against each credential, however
	// many entries name the two: DIF does not forbid repeating an entry,
	// and repeating one must not repeat the work.
	judged := map[judgedPair]bool{}
	sel := selection{
		root: vp,
		// Each JWT credential is decoded once, however many entries name
		// it: the decoding then costs at most the presentation's own size.
		jwts:    map[string]decodedJWT{},
		creds:   listedCredentials(vp, vpClaim),
		vpClaim: vpClaim,
	}
	for i, m := range sub.DescriptorMap {
		d, known := byID[m.ID]
		if !known {
			problems = append(problems, fmt.Sprintf("descriptor_map[%d] names %q, which is not an input descriptor of the request", i, m.ID))
			continue
		}
		where := fmt.Sprintf("descriptor_map[%d]", i)
		cred, credShape, problem := selectCredential(vp, m, where, 0, &sel)
		if problem == "" {
			problem = entryFormatProblem(m, where, d, credShape, presShape)
		}
		if problem != "" {
			problems = append(problems, fmt.Sprintf("input descriptor %q: %s", m.ID, problem))
			continue
		}
		pair := judgedPair{d, reflect.ValueOf(cred).Pointer()}
		if judged[pair] {
			continue // as judged before, its problems told once
		}
		judged[pair] = true
		if fp := fieldProblems(d, cred, work); len(fp) > 0 {
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
	if p := presentationFormatProblem(defFormats, presShape); p != "" {
		problems = append(problems, p)
	}
	if isJWT {
		return append(problems, jwtBindingProblems(vp, challenge, domain)...)
	}
	return append(problems, proofProblems(vp["proof"], challenge, domain)...)
}

// judgedPair is an input descriptor and a credential: the very object a
// descriptor_map entry selects, which the presentation keeps alive.
type judgedPair struct {
	d    *peDescriptor
	cred uintptr
}

// numberProblem tells a *pefilter.NumberError after "the presentation"
// or "is a JWT whose payload".
func numberProblem(err error) string {
	var ne *pefilter.NumberError
	if !errors.As(err, &ne) {
		return "cannot be read: " + err.Error()
	}
	return fmt.Sprintf("has the number %s at %s, past what the verifier reads (at most %d digits, and an exponent of at most %d either way)",
		textcut.Prefix(ne.Number, 40), ne.Pointer, pefilter.MaxNumberDigits, pefilter.MaxNumberExponent)
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
