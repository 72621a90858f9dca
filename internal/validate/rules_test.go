package validate

import (
	"slices"
	"strings"
	"testing"
)

const (
	ri = "proofFormats.indy.requested_attributes.attr1"
	rp = "proofFormats.indy.requested_predicates.pred1"
	id = "presentationDefinition.input_descriptors[0]"
	fl = id + ".constraints.fields[0]"
)

// TestRules has at least one row per rule of DESIGN.md §3, valid and
// invalid, each checking the exact messages (so the field paths) reported.
func TestRules(t *testing.T) {
	v := newValidator(t, Options{})
	long := func(n int) string { return strings.Repeat("x", n) }
	elevenMails := []any{}
	for i := range 11 {
		elevenMails = append(elevenMails, "user"+string(rune('a'+i))+"@example.com")
	}
	tests := []struct {
		name        string
		requestType string
		base        string
		edits       []edit
		want        []string // nil: valid
	}{
		// requestType
		{"indy valid", "indy", indyBody, nil, nil},
		{"pe valid", "presentationExchange", peBody, nil, nil},
		{"requestType missing", "", indyBody, nil, []string{`requestType: is required: "indy" or "presentationExchange"`}},
		{"requestType unknown", "anoncreds", indyBody, nil, []string{`requestType: must be "indy" or "presentationExchange"`}},
		{"requestType case", "Indy", indyBody, nil, []string{`requestType: must be "indy" or "presentationExchange"`}},

		// isShortenUrl, reuseConnection, protocolVersion
		{"isShortenUrl missing", "indy", indyBody, []edit{del("isShortenUrl")}, []string{"isShortenUrl: is required (true or false)"}},
		{"isShortenUrl string", "indy", indyBody, []edit{set("isShortenUrl", "true")}, []string{"isShortenUrl: must be a boolean"}},
		{"isShortenUrl null", "indy", indyBody, []edit{set("isShortenUrl", nil)}, []string{"isShortenUrl: must be a boolean"}},
		{"reuseConnection false", "indy", indyBody, []edit{set("reuseConnection", false)}, nil},
		{"reuseConnection null", "indy", indyBody, []edit{set("reuseConnection", nil)}, nil},
		{"reuseConnection number", "indy", indyBody, []edit{set("reuseConnection", 1)}, []string{"reuseConnection: must be a boolean"}},
		{"protocolVersion v1 indy", "indy", indyBody, []edit{set("protocolVersion", "v1")}, nil},
		{"protocolVersion v2 pe", "presentationExchange", peBody, []edit{set("protocolVersion", "v2")}, nil},
		{"protocolVersion v1 pe", "presentationExchange", peBody, []edit{set("protocolVersion", "v1")}, []string{`protocolVersion: "v1" (present-proof 1.0) supports only requestType indy; use "v2"`}},
		{"protocolVersion other", "indy", indyBody, []edit{set("protocolVersion", "2.0")}, []string{`protocolVersion: must be "v1" or "v2"`}},
		{"protocolVersion number", "indy", indyBody, []edit{set("protocolVersion", 2)}, []string{`protocolVersion: must be "v1" or "v2"`}},

		// proofFormats
		{"proofFormats missing", "indy", indyBody, []edit{del("proofFormats")}, []string{"proofFormats: is required (an object; for requestType indy it holds indy)"}},
		{"proofFormats array", "presentationExchange", peBody, []edit{set("proofFormats", raw(`[]`))}, []string{"proofFormats: must be an object"}},
		{"indy missing", "indy", indyBody, []edit{set("proofFormats", raw(`{}`))}, []string{"proofFormats.indy: is required for requestType indy"}},
		{"indy with pe", "presentationExchange", peBody, []edit{set("proofFormats", raw(`{"indy":{}}`))}, []string{"proofFormats.indy: is not allowed with requestType presentationExchange: the request goes in presentationDefinition (proofFormats may be {})"}},
		{"proofFormats.presentationExchange", "presentationExchange", peBody, []edit{set("proofFormats.presentationExchange", raw(`{}`))}, []string{"proofFormats.presentationExchange: unknown field: send the DIF presentation definition as the top-level presentationDefinition"}},
		{"proofFormats unknown", "indy", indyBody, []edit{set("proofFormats.anoncreds", raw(`{}`))}, []string{"proofFormats.anoncreds: unknown field"}},
		{"indy not object", "indy", indyBody, []edit{set("proofFormats.indy", "x")}, []string{"proofFormats.indy: must be an object"}},
		{"indy unknown field", "indy", indyBody, []edit{set("proofFormats.indy.nonce", "123")}, []string{"proofFormats.indy.nonce: unknown field"}},

		// indy name and version
		{"indy name missing", "indy", indyBody, []edit{del("proofFormats.indy.name")}, []string{"proofFormats.indy.name: is required"}},
		{"indy name blank", "indy", indyBody, []edit{set("proofFormats.indy.name", "  ")}, []string{"proofFormats.indy.name: must not be empty"}},
		{"indy name number", "indy", indyBody, []edit{set("proofFormats.indy.name", 1)}, []string{"proofFormats.indy.name: must be a string"}},
		{"indy version missing", "indy", indyBody, []edit{del("proofFormats.indy.version")}, []string{`proofFormats.indy.version: is required: a dotted version like "1.0"`}},
		{"indy version letters", "indy", indyBody, []edit{set("proofFormats.indy.version", "1.0a")}, []string{`proofFormats.indy.version: must be a dotted version of digits like "1.0"`}},
		{"indy version empty part", "indy", indyBody, []edit{set("proofFormats.indy.version", "1..0")}, []string{`proofFormats.indy.version: must be a dotted version of digits like "1.0"`}},
		{"indy version three parts", "indy", indyBody, []edit{set("proofFormats.indy.version", "1.2.3")}, nil},

		// requested_attributes
		{"attributes not object", "indy", indyBody, []edit{set("proofFormats.indy.requested_attributes", raw(`[]`))}, []string{"proofFormats.indy.requested_attributes: must be an object mapping referents to attribute requests"}},
		{"attribute names", "indy", indyBody, []edit{del(ri + ".name"), set(ri+".names", raw(`["name","surname"]`))}, nil},
		{"attribute name and names", "indy", indyBody, []edit{set(ri+".names", raw(`["a"]`))}, []string{ri + ": must have exactly one of name or names, not both"}},
		{"attribute neither", "indy", indyBody, []edit{del(ri + ".name")}, []string{ri + ": must have exactly one of name or names"}},
		{"attribute name empty", "indy", indyBody, []edit{set(ri+".name", "")}, []string{ri + ".name: must not be empty"}},
		{"attribute names empty", "indy", indyBody, []edit{del(ri + ".name"), set(ri+".names", raw(`[]`))}, []string{ri + ".names: must not be empty"}},
		{"attribute names duplicate", "indy", indyBody, []edit{del(ri + ".name"), set(ri+".names", raw(`["a","b","a"]`))}, []string{ri + `.names[2]: duplicate attribute name "a"`}},
		{"attribute names not strings", "indy", indyBody, []edit{del(ri + ".name"), set(ri+".names", raw(`["a",1,""]`))}, []string{ri + ".names[1]: must be a string", ri + ".names[2]: must not be empty"}},
		{"attribute names not array", "indy", indyBody, []edit{del(ri + ".name"), set(ri+".names", "a")}, []string{ri + ".names: must be an array of attribute names"}},
		{"attribute not object", "indy", indyBody, []edit{set(ri, "name")}, []string{ri + ": must be an object with name or names"}},
		{"attribute unknown field", "indy", indyBody, []edit{set(ri+".value", "x")}, []string{ri + ".value: unknown field"}},
		{"referent with dot", "indy", indyBody, []edit{set("proofFormats.indy.requested_attributes", raw(`{"a.b":{"name":"x"}}`))}, nil},
		{"referent with dot problem", "indy", indyBody, []edit{set("proofFormats.indy.requested_attributes", raw(`{"a.b":{}}`))}, []string{`proofFormats.indy.requested_attributes["a.b"]: must have exactly one of name or names`}},
		{"referent empty", "indy", indyBody, []edit{set("proofFormats.indy.requested_attributes", raw(`{"":{"name":"x"}}`))}, []string{`proofFormats.indy.requested_attributes[""]: a referent must not be empty`}},

		// requested_predicates
		{"predicates absent", "indy", indyBody, []edit{del("proofFormats.indy.requested_predicates")}, nil},
		{"predicates empty", "indy", indyBody, []edit{set("proofFormats.indy.requested_predicates", raw(`{}`))}, nil},
		{"attributes absent", "indy", indyBody, []edit{del("proofFormats.indy.requested_attributes")}, nil},
		{"nothing requested", "indy", indyBody, []edit{set("proofFormats.indy.requested_attributes", raw(`{}`)), del("proofFormats.indy.requested_predicates")}, []string{"proofFormats.indy: must request at least one attribute (requested_attributes) or predicate (requested_predicates)"}},
		{"predicates not object", "indy", indyBody, []edit{set("proofFormats.indy.requested_predicates", raw(`[]`))}, []string{"proofFormats.indy.requested_predicates: must be an object mapping referents to predicate requests"}},
		{"predicate not object", "indy", indyBody, []edit{set(rp, 1)}, []string{rp + ": must be an object with name, p_type and p_value"}},
		{"predicate name missing", "indy", indyBody, []edit{del(rp + ".name")}, []string{rp + ".name: is required"}},
		{"predicate names not allowed", "indy", indyBody, []edit{set(rp+".names", raw(`["a"]`))}, []string{rp + ".names: unknown field (did you mean name?)"}},
		{"p_type missing", "indy", indyBody, []edit{del(rp + ".p_type")}, []string{rp + `.p_type: is required: one of ">=", ">", "<=", "<"`}},
		{"p_type wrong", "indy", indyBody, []edit{set(rp+".p_type", "==")}, []string{rp + `.p_type: must be one of ">=", ">", "<=", "<"`}},
		{"p_type each", "indy", indyBody, []edit{set(rp+".p_type", "<")}, nil},
		{"p_value missing", "indy", indyBody, []edit{del(rp + ".p_value")}, []string{rp + ".p_value: is required (an integer)"}},
		{"p_value string", "indy", indyBody, []edit{set(rp+".p_value", "18")}, []string{rp + ".p_value: must be an integer that fits in 32 bits"}},
		{"p_value fraction", "indy", indyBody, []edit{set(rp+".p_value", raw(`18.5`))}, []string{rp + ".p_value: must be an integer that fits in 32 bits"}},
		{"p_value too big", "indy", indyBody, []edit{set(rp+".p_value", raw(`2147483648`))}, []string{rp + ".p_value: must be an integer that fits in 32 bits"}},
		{"p_value too small", "indy", indyBody, []edit{set(rp+".p_value", raw(`-2147483649`))}, []string{rp + ".p_value: must be an integer that fits in 32 bits"}},
		{"p_value limits", "indy", indyBody, []edit{set(rp+".p_value", raw(`-2147483648`))}, nil},
		{"p_value integral float", "indy", indyBody, []edit{set(rp+".p_value", raw(`2.0e1`))}, nil},
		{"referent in both maps", "indy", indyBody, []edit{set("proofFormats.indy.requested_predicates.attr1", raw(`{"name":"age","p_type":">","p_value":1}`))}, []string{`proofFormats.indy.requested_predicates.attr1: referent "attr1" is also used in requested_attributes; referents must be unique`}},

		// restrictions
		{"restrictions absent", "indy", indyBody, []edit{del(ri + ".restrictions")}, nil},
		{"restrictions empty list", "indy", indyBody, []edit{set(ri+".restrictions", raw(`[]`))}, nil},
		{"restrictions object", "indy", indyBody, []edit{set(ri+".restrictions", raw(`{"schema_name":"x"}`))}, []string{ri + `.restrictions: must be an array of restriction objects, e.g. [{"schema_id": "..."}]`}},
		{"restriction not object", "indy", indyBody, []edit{set(ri+".restrictions", raw(`["x"]`))}, []string{ri + ".restrictions[0]: must be an object"}},
		{"restriction empty", "indy", indyBody, []edit{set(ri+".restrictions", raw(`[{}]`))}, []string{ri + ".restrictions[0]: must not be empty (an empty restriction would match any credential)"}},
		{"restriction unknown key", "indy", indyBody, []edit{set(ri+".restrictions.0.schema", "x")}, []string{ri + ".restrictions[0].schema: not an AnonCreds restriction key (allowed: " + restrictionKeyList + ")"}},
		{"restriction value number", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_version", 1)}, []string{ri + ".restrictions[0].schema_version: must be a string"}},
		{"restriction value empty", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_name", "")}, []string{ri + ".restrictions[0].schema_name: must not be empty"}},
		{"schema_id bad", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "id")}, []string{ri + ".restrictions[0].schema_id: not a schema identifier (<did>:2:<name>:<version>, a DID URL or a URI)"}},
		{"schema_id wrong marker", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "WgWxqztrNooG92RXvxSTWv:3:schema_name:1.0")}, []string{ri + ".restrictions[0].schema_id: not a schema identifier (<did>:2:<name>:<version>, a DID URL or a URI)"}},
		{"schema_id short did", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "WgWxqztr:2:schema_name:1.0")}, []string{ri + ".restrictions[0].schema_id: not a schema identifier (<did>:2:<name>:<version>, a DID URL or a URI)"}},
		{"schema_id did:sov legacy", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "did:sov:WgWxqztrNooG92RXvxSTWv:2:schema name:1.0")}, nil},
		{"schema_id did:indy", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "did:indy:sovrin:WgWxqztrNooG92RXvxSTWv/anoncreds/v0/SCHEMA/schema_name/1.0")}, nil},
		{"schema_id https", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "https://schemas.example.com/employee/1.0")}, nil},
		{"schema_id space", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_id", "https://schemas.example.com/a b")}, []string{ri + ".restrictions[0].schema_id: not a schema identifier (<did>:2:<name>:<version>, a DID URL or a URI)"}},
		{"cred_def_id bad", "indy", indyBody, []edit{set(ri+".restrictions.0.cred_def_id", "WgWxqztrNooG92RXvxSTWv:3:CL:20")}, []string{ri + ".restrictions[0].cred_def_id: not a credential definition identifier (<did>:3:CL:<schema>:<tag>, a DID URL or a URI)"}},
		{"cred_def_id schema id ref", "indy", indyBody, []edit{set(ri+".restrictions.0.cred_def_id", "WgWxqztrNooG92RXvxSTWv:3:CL:WgWxqztrNooG92RXvxSTWv:2:gvt:1.0:TAG_1")}, nil},
		{"issuer_did good", "indy", indyBody, []edit{set(ri+".restrictions.0.issuer_did", "NcYxiDXkpYi6ov5FcYDi1e")}, nil},
		{"issuer_did bad", "indy", indyBody, []edit{set(ri+".restrictions.0.issuer_did", "did")}, []string{ri + ".restrictions[0].issuer_did: not a DID (a 21-22 character base58 Indy DID or did:<method>:<id>)"}},
		{"schema_issuer_did bad base58", "indy", indyBody, []edit{set(ri+".restrictions.0.schema_issuer_did", "0000000000000000000000")}, []string{ri + ".restrictions[0].schema_issuer_did: not a DID (a 21-22 character base58 Indy DID or did:<method>:<id>)"}},
		{"issuer_id uri", "indy", indyBody, []edit{set(ri+".restrictions.0.issuer_id", "did:web:issuer.example.com")}, nil},
		{"issuer_id bad", "indy", indyBody, []edit{set(ri+".restrictions.0.issuer_id", "issuer")}, []string{ri + ".restrictions[0].issuer_id: not an issuer identifier (an Indy DID, a DID or a URI)"}},
		{"rev_reg_id good", "indy", indyBody, []edit{set(ri+".restrictions.0.rev_reg_id", "WgWxqztrNooG92RXvxSTWv:4:WgWxqztrNooG92RXvxSTWv:3:CL:20:tag:CL_ACCUM:0")}, nil},
		{"rev_reg_id bad", "indy", indyBody, []edit{set(ri+".restrictions.0.rev_reg_id", "WgWxqztrNooG92RXvxSTWv:4:x")}, []string{ri + ".restrictions[0].rev_reg_id: not a revocation registry identifier (<did>:4:<cred def id>:CL_ACCUM:<tag>, a DID URL or a URI)"}},
		{"attr value", "indy", indyBody, []edit{set(ri+".restrictions.0.attr::name::value", "Alice")}, nil},
		{"attr marker", "indy", indyBody, []edit{set(ri+".restrictions.0.attr::name::marker", "1")}, nil},
		{"attr marker not 1", "indy", indyBody, []edit{set(ri+".restrictions.0.attr::name::marker", "true")}, []string{ri + `.restrictions[0].attr::name::marker: must be "1" (the attribute must be present)`}},
		{"attr no name", "indy", indyBody, []edit{set(ri+".restrictions.0.attr::::value", "x")}, []string{ri + ".restrictions[0].attr::::value: not an AnonCreds restriction key: use attr::<name>::value or attr::<name>::marker"}},
		{"predicate restrictions", "indy", indyBody, []edit{set(rp+".restrictions", raw(`[{"cred_def_id":"x"}]`))}, []string{rp + ".restrictions[0].cred_def_id: not a credential definition identifier (<did>:3:CL:<schema>:<tag>, a DID URL or a URI)"}},

		// non_revoked
		{"non_revoked interval", "indy", indyBody, []edit{set("proofFormats.indy.non_revoked", raw(`{"from":0,"to":1700000000}`))}, nil},
		{"non_revoked empty", "indy", indyBody, []edit{set(ri+".non_revoked", raw(`{}`))}, nil},
		{"non_revoked from after to", "indy", indyBody, []edit{set(ri+".non_revoked", raw(`{"from":10,"to":5}`))}, []string{ri + ".non_revoked.from: must not be after to"}},
		{"non_revoked negative", "indy", indyBody, []edit{set(rp+".non_revoked", raw(`{"to":-1}`))}, []string{rp + ".non_revoked.to: must be a non-negative integer (epoch seconds)"}},
		{"non_revoked fraction", "indy", indyBody, []edit{set("proofFormats.indy.non_revoked", raw(`{"from":1.5}`))}, []string{"proofFormats.indy.non_revoked.from: must be a non-negative integer (epoch seconds)"}},
		{"non_revoked not object", "indy", indyBody, []edit{set("proofFormats.indy.non_revoked", 5)}, []string{"proofFormats.indy.non_revoked: must be an object {from?, to?} of epoch seconds"}},
		{"non_revoked unknown", "indy", indyBody, []edit{set("proofFormats.indy.non_revoked", raw(`{"at":1}`))}, []string{"proofFormats.indy.non_revoked.at: unknown field"}},

		// presentationDefinition with indy
		{"indy pd null", "indy", indyBody, []edit{set("presentationDefinition", nil)}, nil},
		{"indy pd empty list", "indy", indyBody, []edit{set("presentationDefinition", raw(`[]`))}, nil},
		{"indy pd empty object", "indy", indyBody, []edit{set("presentationDefinition", raw(`{}`))}, nil},
		{"indy pd given", "indy", indyBody, []edit{set("presentationDefinition", raw(`[{"input_descriptors":[]}]`))}, []string{"presentationDefinition: must be absent or empty for requestType indy (the proof request goes in proofFormats.indy)"}},

		// presentationDefinition with presentationExchange
		{"pe pd missing", "presentationExchange", peBody, []edit{del("presentationDefinition")}, []string{"presentationDefinition: is required for requestType presentationExchange: a DIF presentation definition"}},
		{"pe pd null", "presentationExchange", peBody, []edit{set("presentationDefinition", nil)}, []string{"presentationDefinition: is required for requestType presentationExchange: a DIF presentation definition"}},
		{"pe pd empty list", "presentationExchange", peBody, []edit{set("presentationDefinition", raw(`[]`))}, []string{"presentationDefinition: must not be empty for requestType presentationExchange"}},
		{"pe pd empty object", "presentationExchange", peBody, []edit{set("presentationDefinition", raw(`{}`))}, []string{"presentationDefinition: must not be empty for requestType presentationExchange"}},
		{"pe pd list of two", "presentationExchange", peBody, []edit{set("presentationDefinition", raw(`[{},{}]`))}, []string{"presentationDefinition: the list form must hold exactly one presentation definition"}},
		{"pe pd list of string", "presentationExchange", peBody, []edit{set("presentationDefinition", raw(`["x"]`))}, []string{"presentationDefinition[0]: must be a presentation definition object"}},
		{"pe pd list of empty", "presentationExchange", peBody, []edit{set("presentationDefinition", raw(`[{}]`))}, []string{"presentationDefinition[0]: must not be empty for requestType presentationExchange"}},
		{"pe pd string", "presentationExchange", peBody, []edit{set("presentationDefinition", "x")}, []string{"presentationDefinition: must be a presentation definition object (or a list holding one)"}},
		{"pe pd both spellings", "presentationExchange", peBody, []edit{set("presentationDefinition.inputDescriptors", raw(`[]`))}, []string{"presentationDefinition: has both input_descriptors and inputDescriptors: send one"}},
		{"pe pd wrapper", "presentationExchange", peBody, []edit{set("presentationDefinition", raw(`{"comment":"x","presentation_definition":{"input_descriptors":[]}}`))}, []string{`presentationDefinition.presentation_definition: send the definition itself as presentationDefinition, without the {"presentation_definition": ...} wrapper`}},
		{"pe pd id empty", "presentationExchange", peBody, []edit{set("presentationDefinition.id", "")}, []string{"presentationDefinition.id: must not be empty (omit it to get a generated UUID)"}},
		{"pe pd id number", "presentationExchange", peBody, []edit{set("presentationDefinition.id", 7)}, []string{"presentationDefinition.id: must be a string"}},
		{"pe pd id any string", "presentationExchange", peBody, []edit{set("presentationDefinition.id", "first simple example")}, nil},
		{"pe pd no descriptors key", "presentationExchange", peBody, []edit{del("presentationDefinition.input_descriptors")}, []string{"presentationDefinition.input_descriptors: is required"}},
		{"pe pd descriptors empty", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors", raw(`[]`))}, []string{"presentationDefinition.input_descriptors: a proof request must ask for at least one input descriptor"}},
		{"pe pd descriptors object", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors", raw(`{}`))}, []string{"presentationDefinition.input_descriptors: must be an array"}},
		{"pe pd unknown field", "presentationExchange", peBody, []edit{set("presentationDefinition.comment", "x")}, []string{"presentationDefinition.comment: is not a DIF Presentation Exchange field here"}},
		{"pe pd name number", "presentationExchange", peBody, []edit{set("presentationDefinition.name", 1)}, []string{"presentationDefinition.name: must be a string"}},
		{"pe pd frame", "presentationExchange", peBody, []edit{set("presentationDefinition.frame", raw(`{"@context":["https://www.w3.org/2018/credentials/v1"]}`))}, nil},
		{"pe pd format", "presentationExchange", peBody, []edit{set("presentationDefinition.format", raw(`{"ldp_vp":{"proof_type":["Ed25519Signature2018"]}}`))}, nil},
		{"pe pd format unknown", "presentationExchange", peBody, []edit{set("presentationDefinition.format", raw(`{"mso_mdoc":{}}`))}, []string{"presentationDefinition.format.mso_mdoc: is not a claim format of the DIF schema (jwt, jwt_vc, jwt_vp, ldp, ldp_vc, ldp_vp)"}},
		{"pe pd format empty alg", "presentationExchange", peBody, []edit{set("presentationDefinition.format", raw(`{"jwt":{"alg":[]}}`))}, []string{"presentationDefinition.format.jwt.alg: must not be empty"}},

		// input descriptors
		{"descriptor not object", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0", "x")}, []string{id + ": must be an input descriptor object"}},
		{"descriptor id missing", "presentationExchange", peBody, []edit{del("presentationDefinition.input_descriptors.0.id")}, []string{id + ".id: is required"}},
		{"descriptor id empty", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.id", " ")}, []string{id + ".id: must not be empty"}},
		{"descriptor ids unique", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors", raw(`[{"id":"a","constraints":{}},{"id":"b","constraints":{}},{"id":"a","constraints":{}}]`))}, []string{`presentationDefinition.input_descriptors[2].id: duplicate input descriptor id "a" (also input_descriptors[0])`}},
		{"descriptor unknown field", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.x", 1)}, []string{id + ".x: is not a DIF Presentation Exchange field here"}},
		{"v2 descriptor without constraints", "presentationExchange", peBody, []edit{del("presentationDefinition.input_descriptors.0.constraints")}, []string{id + ".constraints: is required"}},
		{"v1 descriptor", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`[{"uri":"https://www.w3.org/2018/credentials#VerifiableCredential","required":true}]`))}, nil},
		{"v1 descriptor without constraints", "presentationExchange", peBody, []edit{del("presentationDefinition.input_descriptors.0.constraints"), set("presentationDefinition.input_descriptors.0.schema", raw(`[{"uri":"https://example.com/s"}]`))}, nil},
		{"v1 schema empty", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`[]`))}, []string{id + ".schema: must not be empty"}},
		{"v1 schema not list", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`{"uri":"x"}`))}, []string{id + ".schema: must be an array"}},
		{"v1 schema uri missing", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`[{"required":true}]`))}, []string{id + ".schema[0].uri: is required"}},
		{"v1 schema uri empty", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`[{"uri":""}]`))}, []string{id + ".schema[0].uri: must not be empty"}},
		{"v1 schema required string", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`[{"uri":"x","required":"yes"}]`))}, []string{id + ".schema[0].required: must be a boolean"}},
		{"v1 and v2 mixed", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors", raw(`[{"id":"a","constraints":{}},{"id":"b","schema":[{"uri":"x"}]}]`))}, []string{"presentationDefinition.input_descriptors[1]: mixes DIF v1 input descriptors (with schema) and v2 ones (without schema, constraints required): use one style in a definition"}},
		{"constraints unknown", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.limit", 1)}, []string{id + ".constraints.limit: is not a DIF Presentation Exchange field here"}},
		{"limit_disclosure enum", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.limit_disclosure", "always")}, []string{id + `.constraints.limit_disclosure: must be one of "required", "preferred"`}},
		{"fields not array", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields", raw(`{}`))}, []string{id + ".constraints.fields: must be an array"}},
		{"field path missing", "presentationExchange", peBody, []edit{del("presentationDefinition.input_descriptors.0.constraints.fields.0.path")}, []string{fl + ".path: is required"}},
		{"field path empty", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`[]`))}, []string{fl + ".path: must list at least one JSONPath expression"}},
		{"field path not string", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`[1]`))}, []string{fl + ".path[0]: must be a string"}},
		{"field path no root", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["credentialSubject.name"]`))}, []string{fl + ".path[0]: must be a JSONPath expression starting with $"}},
		{"field path syntax", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["$.ok","$.a["]`))}, []string{fl + ".path[1]: is not a valid JSONPath expression: not terminated at 5 in $.a["}},
		{"field path filter expression", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["$.credentialSubject[?(@.type == 'x')].id","$..name"]`))}, nil},
		{"field path two recursive descents", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["$.ok","$..*..*..*"]`))}, []string{fl + ".path[1]: is beyond what the verifier evaluates cheaply: has more than 1 recursive descent (..) (at offset 4)" + jsonpathBound}},
		{"field path wide unions", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["$['a','b','c','d']['a','b','c','d','e']"]`))}, []string{fl + ".path[0]: is beyond what the verifier evaluates cheaply: its unions select more than 16 branches (at offset 39)" + jsonpathBound}},
		{"field path script", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["$.a[?(@.b =~ /x/)]"]`))}, []string{fl + ".path[0]: is beyond what the verifier evaluates cheaply: regular expressions (=~) are not supported in filters; use the field's filter (JSON Schema pattern) instead (at offset 10)" + jsonpathBound}},
		{"field path wildcards and one descent", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.path", raw(`["$..account[*].id","$.a[0:2]['x','y']"]`))}, nil},
		{"field unknown", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.value", 1)}, []string{fl + ".value: is not a DIF Presentation Exchange field here"}},
		{"predicate without filter", "presentationExchange", peBody, []edit{del("presentationDefinition.input_descriptors.0.constraints.fields.0.filter"), set("presentationDefinition.input_descriptors.0.constraints.fields.0.predicate", "required")}, []string{fl + ".filter: is required when predicate is present"}},
		{"predicate with filter", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.predicate", "preferred")}, nil},
		{"predicate enum", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.predicate", "always")}, []string{fl + `.predicate: must be one of "required", "preferred"`}},
		{"filter bad type", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter.type", "strin")}, []string{fl + `.filter.type: matches none of the allowed forms (must be an array | must be one of "array", "boolean", "integer", "null", "number", "object", "string")`}},
		{"filter bad regex", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter.pattern", "((")}, []string{fl + ".filter.pattern: must be a valid regex: error parsing regexp: missing closing ): `((`"}},
		{"filter nested bad", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", raw(`{"allOf":[{"minimum":"1"}]}`))}, []string{fl + ".filter.allOf[0].minimum: must be a number"}},
		{"filter not schema", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", 5)}, []string{fl + ".filter: must be a boolean or an object"}},
		{"filter external ref", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", raw(`{"$ref":"file:///etc/passwd"}`))}, []string{fl + ".filter: must not refer to other schemas ($ref is not allowed, and $schema must name a standard draft)"}},
		{"filter internal ref", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", raw(`{"definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s"}`))}, []string{fl + ".filter.$ref: " + refRefused}},
		{"filter property named $ref", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", raw(`{"properties":{"$ref":{"const":{"$ref":"#"}}}}`))}, nil},
		{"filter 2020-12", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", raw(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string","minLength":1}`))}, nil},
		{"filter in v1 descriptor", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.schema", raw(`[{"uri":"x"}]`)), set("presentationDefinition.input_descriptors.0.constraints.fields.0.filter", raw(`{"type":"string","maxLength":-1}`))}, []string{fl + ".filter.maxLength: must be at least 0"}},
		{"statuses", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.statuses", raw(`{"active":{"directive":"required"}}`))}, nil},
		{"statuses bad", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.constraints.statuses", raw(`{"active":{"directive":"maybe"}}`))}, []string{id + `.constraints.statuses.active.directive: must be one of "required", "allowed", "disallowed"`}},
		{"descriptor format", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.format", raw(`{"jwt_vc":{"alg":["ES256"]}}`))}, nil},

		// submission requirements
		{"requirement ok", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"rule":"pick","count":1,"from":"A"},{"rule":"all","from_nested":[{"rule":"pick","min":0,"max":1,"from":"A"}]}]`))}, nil},
		{"requirement unknown group", "presentationExchange", peBody, []edit{set("presentationDefinition.submission_requirements", raw(`[{"rule":"all","from":"B"}]`))}, []string{`presentationDefinition.submission_requirements[0].from: no input descriptor is in group "B"`}},
		{"requirement nested unknown group", "presentationExchange", peBody, []edit{set("presentationDefinition.submission_requirements", raw(`[{"rule":"all","from_nested":[{"rule":"all","from":"B"}]}]`))}, []string{`presentationDefinition.submission_requirements[0].from_nested[0].from: no input descriptor is in group "B"`}},
		{"requirement both", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"rule":"all","from":"A","from_nested":[{"rule":"all","from":"A"}]}]`))}, []string{"presentationDefinition.submission_requirements[0]: must have exactly one of from or from_nested, not both"}},
		{"requirement neither", "presentationExchange", peBody, []edit{set("presentationDefinition.submission_requirements", raw(`[{"rule":"all"}]`))}, []string{"presentationDefinition.submission_requirements[0]: must have exactly one of from or from_nested"}},
		{"requirement rule", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"rule":"some","from":"A"}]`))}, []string{`presentationDefinition.submission_requirements[0].rule: must be one of "all", "pick"`}},
		{"requirement rule missing", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"from":"A"}]`))}, []string{"presentationDefinition.submission_requirements[0].rule: is required"}},
		{"requirement counts", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"rule":"pick","from":"A","count":0,"min":-1,"max":1.5}]`))}, []string{
			"presentationDefinition.submission_requirements[0].count: must be at least 1",
			"presentationDefinition.submission_requirements[0].min: must be at least 0",
			"presentationDefinition.submission_requirements[0].max: must be an integer",
		}},
		{"requirement min above max", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"rule":"pick","from":"A","min":3,"max":1}]`))}, []string{"presentationDefinition.submission_requirements[0].max: must not be less than min"}},
		{"requirement nested empty", "presentationExchange", peBody, []edit{set("presentationDefinition.submission_requirements", raw(`[{"rule":"all","from_nested":[]}]`))}, []string{"presentationDefinition.submission_requirements[0].from_nested: must not be empty"}},
		{"requirement unknown field", "presentationExchange", peBody, []edit{set("presentationDefinition.input_descriptors.0.group", raw(`["A"]`)), set("presentationDefinition.submission_requirements", raw(`[{"rule":"all","from":"A","x":1}]`))}, []string{"presentationDefinition.submission_requirements[0].x: is not a DIF Presentation Exchange field here"}},

		// emailId
		{"emails", "indy", indyBody, []edit{set("emailId", raw(`["alice@example.com","bob@example.org"]`))}, nil},
		{"emails null", "indy", indyBody, []edit{set("emailId", nil)}, nil},
		{"emails empty", "indy", indyBody, []edit{set("emailId", raw(`[]`))}, []string{"emailId: must not be empty (omit the field to send no e-mail)"}},
		{"emails string", "indy", indyBody, []edit{set("emailId", "alice@example.com")}, []string{"emailId: must be an array of e-mail addresses"}},
		{"emails display name", "indy", indyBody, []edit{set("emailId", raw(`["Alice <alice@example.com>"]`))}, []string{"emailId[0]: must be a bare e-mail address like name@example.com (no display name, no brackets)"}},
		{"emails brackets", "indy", indyBody, []edit{set("emailId", raw(`["<alice@example.com>"]`))}, []string{"emailId[0]: must be a bare e-mail address like name@example.com (no display name, no brackets)"}},
		{"emails header injection", "indy", indyBody, []edit{set("emailId", raw(`["alice@example.com\r\nBcc: eve@example.com"]`))}, []string{"emailId[0]: must be a bare e-mail address like name@example.com (no display name, no brackets)"}},
		{"emails not address", "indy", indyBody, []edit{set("emailId", raw(`["alice"]`))}, []string{"emailId[0]: must be a bare e-mail address like name@example.com (no display name, no brackets)"}},
		{"emails address literal", "indy", indyBody, []edit{set("emailId", raw(`["root@[10.0.0.1]"]`))}, []string{"emailId[0]: must be at a domain name like example.com: not an address literal ([10.0.0.1]) nor a host of the mail server's own network (localhost)"}},
		{"emails IPv4 without brackets", "indy", indyBody, []edit{set("emailId", raw(`["root@10.0.0.1"]`))}, []string{"emailId[0]: must be at a domain name like example.com: not an address literal ([10.0.0.1]) nor a host of the mail server's own network (localhost)"}},
		{"emails single-label host", "indy", indyBody, []edit{set("emailId", raw(`["root@localhost"]`))}, []string{"emailId[0]: must be at a domain name like example.com: not an address literal ([10.0.0.1]) nor a host of the mail server's own network (localhost)"}},
		{"emails too long", "indy", indyBody, []edit{set("emailId", []any{long(251) + "@b.c"})}, []string{"emailId[0]: must be a bare e-mail address like name@example.com (no display name, no brackets)"}},
		{"emails not string", "indy", indyBody, []edit{set("emailId", raw(`[1]`))}, []string{"emailId[0]: must be a string"}},
		{"emails duplicate ignoring case", "indy", indyBody, []edit{set("emailId", raw(`["Alice@Example.com","bob@example.com","alice@example.COM"]`))}, []string{"emailId[2]: duplicate of emailId[0]"}},
		{"emails too many", "indy", indyBody, []edit{set("emailId", elevenMails)}, []string{"emailId: must list at most 10 recipients"}},
		{"emails at the cap", "indy", indyBody, []edit{set("emailId", elevenMails[:10])}, nil},

		// autoAcceptProof
		{"autoAccept always", "indy", indyBody, []edit{set("autoAcceptProof", "always")}, nil},
		{"autoAccept contentApproved", "indy", indyBody, []edit{set("autoAcceptProof", "contentApproved")}, nil},
		{"autoAccept never", "indy", indyBody, []edit{set("autoAcceptProof", "never")}, nil},
		{"autoAccept empty object", "indy", indyBody, []edit{set("autoAcceptProof", raw(`{}`))}, nil},
		{"autoAccept null", "indy", indyBody, []edit{set("autoAcceptProof", nil)}, nil},
		{"autoAccept other", "indy", indyBody, []edit{set("autoAcceptProof", "Always")}, []string{`autoAcceptProof: must be "always", "contentApproved" or "never" (or {} / null for the agent's default)`}},
		{"autoAccept object", "indy", indyBody, []edit{set("autoAcceptProof", raw(`{"value":"always"}`))}, []string{`autoAcceptProof: must be "always", "contentApproved" or "never" (or {} / null for the agent's default)`}},
		{"autoAccept bool", "indy", indyBody, []edit{set("autoAcceptProof", true)}, []string{`autoAcceptProof: must be "always", "contentApproved" or "never" (or {} / null for the agent's default)`}},

		// free text
		{"texts at caps", "indy", indyBody, []edit{set("goalCode", long(128)), set("label", long(200)), set("comment", long(4096)), set("parentThreadId", long(128))}, nil},
		{"texts over caps", "indy", indyBody, []edit{set("goalCode", long(129)), set("label", long(201)), set("comment", long(4097)), set("parentThreadId", long(129))}, []string{
			"goalCode: must be at most 128 characters",
			"label: must be at most 200 characters",
			"comment: must be at most 4096 characters",
			"parentThreadId: must be at most 128 characters",
		}},
		{"caps count characters", "indy", indyBody, []edit{set("comment", strings.Repeat("é", 4096))}, nil},
		{"label caps bytes (the mail layer's limit)", "indy", indyBody, []edit{set("label", strings.Repeat("é", 100))}, nil},
		{"label over 200 bytes", "indy", indyBody, []edit{set("label", strings.Repeat("é", 150))}, []string{"label: must be at most 200 bytes of UTF-8 (300 here)"}},
		{"label CRLF", "indy", indyBody, []edit{set("label", "Acme\r\nBcc: x@example.com")}, []string{"label: must not contain control characters (found U+000D)"}},
		{"label LF", "indy", indyBody, []edit{set("label", "Acme\nInc")}, []string{"label: must be one line (no line breaks or tabs)"}},
		{"label NUL", "indy", indyBody, []edit{set("label", "Acme\x00")}, []string{"label: must not contain control characters (found U+0000)"}},
		{"label bidi override", "indy", indyBody, []edit{set("label", "Acme \u202egnp.exe")}, []string{"label: must not contain bidirectional override or isolate characters (found U+202E)"}},
		{"label bidi isolate", "indy", indyBody, []edit{set("label", "Acme \u2067x")}, []string{"label: must not contain bidirectional override or isolate characters (found U+2067)"}},
		{"label C1", "indy", indyBody, []edit{set("label", "Acme \u0085")}, []string{"label: must not contain control characters (found U+0085)"}},
		{"label RTL text is fine", "indy", indyBody, []edit{set("label", "שלום Verifier \u200f")}, nil},
		{"goalCode escape", "indy", indyBody, []edit{set("goalCode", "aries.vc\x1b[31m")}, []string{"goalCode: must not contain control characters (found U+001B)"}},
		{"comment lines", "indy", indyBody, []edit{set("comment", "line one\nline two\tend")}, nil},
		{"comment NUL", "indy", indyBody, []edit{set("comment", "a\x00b")}, []string{"comment: must not contain control characters (found U+0000)"}},
		{"comment CR", "indy", indyBody, []edit{set("comment", "a\r\nb")}, []string{"comment: must not contain control characters (found U+000D)"}},
		{"comment bidi", "indy", indyBody, []edit{set("comment", "\u202ax")}, []string{"comment: must not contain bidirectional override or isolate characters (found U+202A)"}},
		{"texts not strings", "indy", indyBody, []edit{set("goalCode", 1), set("label", raw(`[]`)), set("comment", false), set("parentThreadId", raw(`{}`))}, []string{
			"goalCode: must be a string", "label: must be a string", "comment: must be a string", "parentThreadId: must be a string",
		}},
		{"texts null", "indy", indyBody, []edit{set("goalCode", nil), set("label", nil), set("comment", nil), set("parentThreadId", nil)}, nil},
		{"parentThreadId uuid", "indy", indyBody, []edit{set("parentThreadId", "0b9e6c1e-3f0e-4c1e-9d44-4b3c8f2a7e11")}, nil},
		{"parentThreadId space", "indy", indyBody, []edit{set("parentThreadId", "thread 1")}, []string{"parentThreadId: must be a UUID or other printable ASCII without spaces"}},
		{"parentThreadId non-ascii", "indy", indyBody, []edit{set("parentThreadId", "thréad")}, []string{"parentThreadId: must be a UUID or other printable ASCII without spaces"}},

		// unknown fields
		{"unknown top-level field", "indy", indyBody, []edit{set("connectionId", "x")}, []string{"connectionId: unknown field"}},
		{"unknown odd key", "indy", indyBody, []edit{set("a b", 1)}, []string{`["a b"]: unknown field`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := with(t, tt.base, tt.edits...)
			req, err := v.OOB(tt.requestType, []byte(body))
			got := problems(t, err)
			sameProblems(t, got, tt.want)
			// The same body again gives the same answer (compiled
			// filters are cached).
			_, again := v.OOB(tt.requestType, []byte(body))
			sameProblems(t, problems(t, again), tt.want)
			// The handler's way: the problems in the pooled buffers, the
			// same list, in the same order, until released.
			_, held, h := v.CheckOOBHeld(tt.requestType, []byte(body))
			if !slices.Equal([]string(held), got) {
				t.Errorf("CheckOOBHeld: %q, CheckOOB: %q", held, got)
			}
			h.Release()
			if tt.want == nil && req.RequestType == "" {
				t.Error("valid request came back empty")
			}
			if tt.want != nil && (req.RequestType != "" || req.Indy != nil || req.PresentationDefinition != nil) {
				t.Error("an invalid request came back filled in")
			}
		})
	}
}

// TestManyProblemsSorted: more problems than the insertion sort takes are
// still answered sorted by path, alike by both ways of checking (the
// missing requestType is found first, the unknown fields a to t after).
func TestManyProblemsSorted(t *testing.T) {
	v := newValidator(t, Options{})
	var edits []edit
	for i := range 20 {
		edits = append(edits, set(string(rune('a'+i)), 1))
	}
	body := []byte(with(t, indyBody, edits...))
	_, copied := v.CheckOOB("", body)
	_, held, h := v.CheckOOBHeld("", body)
	defer h.Release()
	if len(copied) != 21 || !slices.IsSorted(copied) || !slices.Equal(held, copied) || !strings.HasPrefix(copied[20], "t: ") {
		t.Fatalf("CheckOOB %q, CheckOOBHeld %q", copied, held)
	}
}

// TestEveryKnownFieldIsRead: each body field of 4.1 has its place in
// rootFields, so none is reported unknown and each is read by its rule.
func TestEveryKnownFieldIsRead(t *testing.T) {
	v := newValidator(t, Options{})
	if len(knownFields) != nFields {
		t.Fatalf("%d known fields, %d places", len(knownFields), nFields)
	}
	for i, name := range knownFields {
		var f rootFields
		var c collector
		doc := []byte(`{"` + name + `":"x"}`)
		p := getParser()
		d, ok := p.parse(doc, &c)
		if !ok {
			t.Fatalf("%s: %q", name, c.errors())
		}
		v.readRoot(d.root(), &f, &c)
		if s, _ := f[i].str(); s != "x" || !c.empty() {
			t.Errorf("%s: read %q, problems %q", name, s, c.errors())
		}
		putParser(p)
	}
}
