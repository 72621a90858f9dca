package backend

import "strconv"

// Field paths name a part of the request body in problems (400s), as the
// validator names them and as the caller wrote them: members dotted, or
// bracketed and quoted when the key would not read back unambiguously
// (indy referents are the caller's and may hold dots or spaces), array
// elements by index. A backend that refuses a field the validator let
// through names it the same way.

// Key extends a field path with an object key.
func Key(parent, k string) string {
	if !PlainKey(k) {
		return parent + "[" + strconv.Quote(k) + "]"
	}
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// Index extends a field path with an array index.
func Index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// PlainKey reports whether k reads back unambiguously dotted: not empty,
// no space or control character, none of . [ ] ".
func PlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		switch b := k[i]; {
		case b <= ' ' || b >= 0x7f:
			return false
		case b == '.' || b == '[' || b == ']' || b == '"':
			return false
		}
	}
	return true
}

// The caller's spellings of a presentation definition, and their defaults.
const (
	DefaultDefinitionPath = "presentationDefinition"
	ListDefinitionPath    = "presentationDefinition[0]" // the interface's listed form
	DefaultDescriptorsKey = "input_descriptors"
)

// DefinitionField is the path of member k (a path of its own, dotted, in
// the spec's spelling) of the presentation definition, as the caller
// wrote the definition.
func (r *OOBRequest) DefinitionField(k string) string {
	p := r.DefinitionPath
	if p == "" {
		p = DefaultDefinitionPath
	}
	return p + "." + k
}

// DescriptorField is the path of rest (dotted, "" for the descriptor
// itself) in input descriptor i, as the caller wrote the definition.
func (r *OOBRequest) DescriptorField(i int, rest string) string {
	ids := r.DescriptorsKey
	if ids == "" {
		ids = DefaultDescriptorsKey
	}
	p := Index(r.DefinitionField(ids), i)
	if rest == "" {
		return p
	}
	return p + "." + rest
}

// IndyReferentField is the path of rest (dotted, "" for the referent
// itself) in referent ref of proofFormats.indy's requested_attributes or
// requested_predicates (kind).
func IndyReferentField(kind, ref, rest string) string {
	p := Key("proofFormats.indy."+kind, ref)
	if rest == "" {
		return p
	}
	return p + "." + rest
}
