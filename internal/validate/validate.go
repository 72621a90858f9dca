// Package validate decodes and checks the body of "send an out-of-band
// proof request" (operation 4.1) and turns it into a backend.OOBRequest,
// following DESIGN.md §3 "Validation of 4.1". Every problem is reported at
// once, each as "fieldpath: problem" (type Errors).
package validate

import (
	"fmt"
	"slices"

	"github.com/proofgate/proofgate/internal/backend"
)

// Option values.
const (
	UnknownFieldsReject = "reject"
	UnknownFieldsIgnore = "ignore"

	InputDescriptorsDIF    = "dif"
	InputDescriptorsStrict = "strict"

	DefaultMaxRecipients = 10
	// MaxRecipientsLimit is the largest max_recipients a config may set:
	// each recipient is a proof request and a mail.
	MaxRecipientsLimit = 1000
)

// Options tune the checks. The zero value is the default behaviour.
type Options struct {
	// UnknownFields is "reject" (default) or "ignore": what to do with keys
	// the request body and proofFormats.indy do not define. Keys inside the
	// presentation definition always follow the DIF schema, and AnonCreds
	// restriction keys are always checked (an unknown one changes the query).
	UnknownFields string

	// InputDescriptors is "dif" (default: DIF Presentation Exchange v1 or
	// v2 rules) or "strict": additionally every field the interface lists
	// (id, name, purpose, schema[].uri, constraints.fields[].path).
	InputDescriptors string

	// MaxRecipients caps emailId; 0 means DefaultMaxRecipients.
	MaxRecipients int
}

// Validator holds the compiled DIF schemas. It is safe for concurrent use.
type Validator struct {
	ignoreUnknown bool
	strict        bool
	maxRecipients int
	pe            *peSchemas
}

// New checks opts and compiles what every request needs, once.
func New(opts Options) (*Validator, error) {
	v := &Validator{maxRecipients: opts.MaxRecipients}
	switch opts.UnknownFields {
	case "", UnknownFieldsReject:
	case UnknownFieldsIgnore:
		v.ignoreUnknown = true
	default:
		return nil, fmt.Errorf("unknown_fields: must be %q or %q, got %q", UnknownFieldsReject, UnknownFieldsIgnore, opts.UnknownFields)
	}
	switch opts.InputDescriptors {
	case "", InputDescriptorsDIF:
	case InputDescriptorsStrict:
		v.strict = true
	default:
		return nil, fmt.Errorf("input_descriptors: must be %q or %q, got %q", InputDescriptorsDIF, InputDescriptorsStrict, opts.InputDescriptors)
	}
	switch {
	case v.maxRecipients == 0:
		v.maxRecipients = DefaultMaxRecipients
	case v.maxRecipients < 0:
		return nil, fmt.Errorf("max_recipients: must be positive, got %d", opts.MaxRecipients)
	}
	pe, err := compilePESchemas()
	if err != nil {
		return nil, fmt.Errorf("compiling the DIF Presentation Exchange schemas: %w", err)
	}
	v.pe = pe
	return v, nil
}

// The body fields of 4.1, each with its place in rootFields.
const (
	fGoalCode = iota
	fProtocolVersion
	fComment
	fProofFormats
	fPresentationDefinition
	fAutoAcceptProof
	fLabel
	fParentThreadID
	fIsShortenURL
	fEmailID
	fReuseConnection
	nFields
)

var knownFields = []string{
	fGoalCode: "goalCode", fProtocolVersion: "protocolVersion", fComment: "comment",
	fProofFormats: "proofFormats", fPresentationDefinition: "presentationDefinition",
	fAutoAcceptProof: "autoAcceptProof", fLabel: "label", fParentThreadID: "parentThreadId",
	fIsShortenURL: "isShortenUrl", fEmailID: "emailId", fReuseConnection: "reuseConnection",
}

// rootFields are the body's members by field (absent when not sent).
type rootFields [nFields]value

// readRoot finds the body's members in one pass, reporting the ones 4.1
// does not define (unless the validator ignores them), so that the rules
// read their fields without searching the object again.
func (v *Validator) readRoot(obj value, f *rootFields, c *collector) {
	for i := range f {
		f[i] = absent
	}
	for it := obj.members(); it.next(); {
		k := it.key()
		if i := rootFieldIndex(k); i >= 0 {
			f[i] = it.value()
		} else {
			v.unknownKey(nil, k, knownFields, c)
		}
	}
}

// rootFieldIndex is the place of body field k in rootFields, or -1. A
// switch rather than a search of knownFields: its strings are compared in
// the instructions, with no table to load (0.45 µs less per request with
// the caches emptied, BenchmarkBadRequestCold; TestEveryKnownFieldIsRead
// keeps the two in step).
func rootFieldIndex(k string) int {
	switch k {
	case "goalCode":
		return fGoalCode
	case "protocolVersion":
		return fProtocolVersion
	case "comment":
		return fComment
	case "proofFormats":
		return fProofFormats
	case "presentationDefinition":
		return fPresentationDefinition
	case "autoAcceptProof":
		return fAutoAcceptProof
	case "label":
		return fLabel
	case "parentThreadId":
		return fParentThreadID
	case "isShortenUrl":
		return fIsShortenURL
	case "emailId":
		return fEmailID
	case "reuseConnection":
		return fReuseConnection
	}
	return -1
}

// OOB validates a 4.1 request: the requestType query value and the raw
// body (already size-limited and known to be JSON by the caller). On any
// problem it returns Errors listing all of them and a zero OOBRequest.
//
// The request's strings share body's memory: body must not be modified
// afterwards.
func (v *Validator) OOB(requestType string, body []byte) (backend.OOBRequest, error) {
	req, problems := v.CheckOOB(requestType, body)
	if problems != nil {
		return backend.OOBRequest{}, problems
	}
	return req, nil
}

// CheckOOB is OOB returning the problems as they are (nil when there are
// none), not boxed in an error, in memory of their own.
func (v *Validator) CheckOOB(requestType string, body []byte) (backend.OOBRequest, Errors) {
	p := getParser()
	defer putParser(p)
	if req, ok := v.checkOOB(p, requestType, body); ok {
		return req, nil
	}
	return backend.OOBRequest{}, p.problems.errors()
}

// Held keeps the buffers of a CheckOOBHeld until Release.
type Held struct{ p *parser }

// Release returns the buffers; the problems they held are gone.
func (h Held) Release() {
	if h.p != nil {
		putParser(h.p)
	}
}

// CheckOOBHeld is CheckOOB whose problems stay in the validator's pooled
// buffers until h.Release(), so that rejecting a request allocates nothing
// for them: the caller answers with them, then releases, and keeps none.
func (v *Validator) CheckOOBHeld(requestType string, body []byte) (req backend.OOBRequest, problems Errors, h Held) {
	p := getParser()
	if req, ok := v.checkOOB(p, requestType, body); ok {
		return req, nil, Held{p}
	}
	return backend.OOBRequest{}, p.problems.messages(), Held{p}
}

// checkOOB validates body with p: the request, or false with the problems
// in p.problems.
func (v *Validator) checkOOB(p *parser, requestType string, body []byte) (backend.OOBRequest, bool) {
	c := &p.problems
	req := backend.OOBRequest{ProtocolVersion: backend.ProtocolV2, ReuseConnection: true}

	switch requestType {
	case string(backend.RequestIndy), string(backend.RequestPresentationExchange):
		req.RequestType = backend.RequestType(requestType)
	case "":
		c.add("requestType", `is required: "indy" or "presentationExchange"`)
	default:
		c.add("requestType", `must be "indy" or "presentationExchange"`)
	}

	d, ok := p.parse(body, c)
	if !ok {
		return backend.OOBRequest{}, false
	}
	var f rootFields
	v.readRoot(d.root(), &f, c)

	if b, ok := requiredBool(f[fIsShortenURL], "isShortenUrl", c); ok {
		req.IsShortenURL = b
	}
	if b, ok := optionalBool(f[fReuseConnection], "reuseConnection", c); ok {
		req.ReuseConnection = b
	}
	v.protocolVersion(f[fProtocolVersion], &req, c)
	v.proofFormats(f[fProofFormats], &req, c)
	v.presentationDefinition(f[fPresentationDefinition], &req, c)
	req.Emails = v.emails(f[fEmailID], c)
	req.AutoAcceptProof = autoAcceptProof(f[fAutoAcceptProof], c)
	req.GoalCode = cappedString(f[fGoalCode], "goalCode", maxGoalCode, c)
	checkText("goalCode", req.GoalCode, oneLine, c)
	req.Label = label(f[fLabel], c)
	req.Comment = cappedString(f[fComment], "comment", maxComment, c)
	checkText("comment", req.Comment, multiLine, c)
	req.ParentThreadID = parentThreadID(f[fParentThreadID], c)

	if !c.empty() {
		return backend.OOBRequest{}, false
	}
	return req, true
}

// unknownKeys reports the keys of obj that are not in known, unless the
// validator ignores unknown fields.
func (v *Validator) unknownKeys(obj value, at *pathNode, known []string, c *collector) {
	if v.ignoreUnknown {
		return
	}
	for it := obj.members(); it.next(); {
		if k := it.key(); !slices.Contains(known, k) {
			v.unknownKey(at, k, known, c)
		}
	}
}

// unknownKey reports member k of the object at path, which known does not
// hold, unless the validator ignores unknown fields.
func (v *Validator) unknownKey(at *pathNode, k string, known []string, c *collector) {
	if v.ignoreUnknown {
		return
	}
	if c.full() {
		c.drop() // no suggestion worked out for a problem only counted
		return
	}
	p := at.child(k)
	c.at(&p, unknownField(k, known))
}

func (v *Validator) protocolVersion(raw value, req *backend.OOBRequest, c *collector) {
	if raw.missing() {
		return
	}
	s, _ := raw.str()
	switch {
	case raw.is(kindString) && s == backend.ProtocolV2:
		req.ProtocolVersion = backend.ProtocolV2
	case raw.is(kindString) && s == backend.ProtocolV1:
		req.ProtocolVersion = backend.ProtocolV1
		if req.RequestType == backend.RequestPresentationExchange {
			c.add("protocolVersion", `"v1" (present-proof 1.0) supports only requestType indy; use "v2"`)
		}
	default:
		c.add("protocolVersion", `must be "v1" or "v2"`)
	}
}

// proofFormatsPath is the path of proofFormats.indy.
var (
	proofFormatsPath = staticPath(nil, "proofFormats")
	indyPath         = staticPath(&proofFormatsPath, "indy")
)

func (v *Validator) proofFormats(pf value, req *backend.OOBRequest, c *collector) {
	if !pf.present() {
		c.add("proofFormats", "is required (an object; for requestType indy it holds indy)")
		return
	}
	if !pf.is(kindObject) {
		c.add("proofFormats", "must be an object")
		return
	}
	for it := pf.members(); it.next(); {
		switch k := it.key(); k {
		case "indy":
		case "presentationExchange":
			if !v.ignoreUnknown {
				c.add("proofFormats.presentationExchange", "unknown field: send the DIF presentation definition as the top-level presentationDefinition")
			}
		default:
			if !v.ignoreUnknown {
				v.unknownKey(&proofFormatsPath, k, []string{"indy", "presentationExchange"}, c)
			}
		}
	}
	indy := pf.get("indy")
	hasIndy := indy.present()
	switch req.RequestType {
	case backend.RequestIndy:
		if !hasIndy {
			c.add("proofFormats.indy", "is required for requestType indy")
			return
		}
		req.Indy = v.indy(indy, &indyPath, c)
	case backend.RequestPresentationExchange:
		if hasIndy {
			c.add("proofFormats.indy", "is not allowed with requestType presentationExchange: the request goes in presentationDefinition (proofFormats may be {})")
		}
	default:
		// requestType is missing or wrong (already reported): still check
		// what was sent, so the caller sees every problem at once.
		if hasIndy {
			v.indy(indy, &indyPath, c)
		}
	}
}

func (v *Validator) presentationDefinition(raw value, req *backend.OOBRequest, c *collector) {
	switch req.RequestType {
	case backend.RequestIndy:
		if !isEmpty(raw) {
			c.add("presentationDefinition", "must be absent or empty for requestType indy (the proof request goes in proofFormats.indy)")
		}
	case backend.RequestPresentationExchange:
		def, id, sp := v.pe.definition(raw.any(), v.strict, c)
		req.PresentationDefinition, req.PresentationDefinitionID = def, id
		req.DefinitionPath, req.DescriptorsKey = sp.path, sp.descriptors
	default:
		if !isEmpty(raw) {
			v.pe.definition(raw.any(), v.strict, c)
		}
	}
}

// isEmpty tells absent, null, [] and {} apart from everything else.
func isEmpty(raw value) bool {
	switch {
	case raw.missing():
		return true
	case raw.is(kindArray), raw.is(kindObject):
		return raw.len() == 0
	}
	return false
}
