package acapy

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// peWithFilter is a presentation-exchange request whose descriptor has a
// first field with a filter ACA-Py serves as it is, and a second with
// filter.
func peWithFilter(filter string) backend.OOBRequest {
	req := peRequest()
	req.PresentationDefinition = json.RawMessage(`{"id":"32f54163-7166-48f1-93d8-ff217bdb0653","input_descriptors":[{"id":"d1",` +
		`"schema":[{"uri":"https://www.w3.org/2018/credentials#VerifiableCredential"}],"constraints":{"fields":[` +
		`{"path":["$.credentialSubject.givenName"],"filter":{"type":"string"}},` +
		`{"path":["$.credentialSubject.x"],"filter":` + filter + `}]}}]}`)
	return req
}

// bodyField is a field of the first input descriptor of a create-request
// body.
type bodyField struct {
	Path   []string        `json:"path"`
	Filter json.RawMessage `json:"filter"`
}

// bodyFields are the fields of the first input descriptor of a
// create-request body.
func bodyFields(t *testing.T, body []byte) []bodyField {
	t.Helper()
	var b struct {
		PresentationRequest struct {
			DIF struct {
				Definition struct {
					InputDescriptors []struct {
						Constraints struct {
							Fields []bodyField `json:"fields"`
						} `json:"constraints"`
					} `json:"input_descriptors"`
				} `json:"presentation_definition"`
			} `json:"dif"`
		} `json:"presentation_request"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return b.PresentationRequest.DIF.Definition.InputDescriptors[0].Constraints.Fields
}

// secondFilter is the filter of the second field in a create-request body.
func secondFilter(t *testing.T, body []byte) string {
	t.Helper()
	return string(bodyFields(t, body)[1].Filter)
}

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// translatedFilters are filters ACA-Py reads with their meaning, and what
// is sent of them: TestFilterTranslatedForACAPy checks the translation,
// TestRealACAPyKeepsTranslatedFilters that ACA-Py keeps all of it.
var translatedFilters = []struct{ name, filter, sent string }{
	{"formatMinimum is minimum beside a date",
		`{"type":"string","format":"date","formatMinimum":"2000-01-01"}`, `{"type":"string","format":"date","minimum":"2000-01-01"}`},
	{"formatMaximum",
		`{"type":"string","format":"date","formatMaximum":"2000-01-01"}`, `{"type":"string","format":"date","maximum":"2000-01-01"}`},
	{"formatExclusiveMinimum",
		`{"type":"string","format":"date","formatExclusiveMinimum":"2000-01-01"}`, `{"type":"string","format":"date","exclusiveMinimum":"2000-01-01"}`},
	{"formatExclusiveMaximum",
		`{"type":"string","format":"date","formatExclusiveMaximum":"2000-01-01"}`, `{"type":"string","format":"date","exclusiveMaximum":"2000-01-01"}`},
	{"v1 date bound as it is",
		`{"type":"string","format":"date","maximum":"1999-05-16"}`, `{"type":"string","format":"date","maximum":"1999-05-16"}`},
	{"date-time bound in UTC (ACA-Py drops offsets)",
		`{"type":"string","format":"date-time","formatMinimum":"2024-01-01T03:00:00+05:00"}`, `{"type":"string","format":"date-time","minimum":"2023-12-31T22:00:00Z"}`},
	{"v1 date-time bound in UTC",
		`{"type":"string","format":"date-time","exclusiveMaximum":"2024-01-01T00:00:00.5+01:00"}`, `{"type":"string","format":"date-time","exclusiveMaximum":"2023-12-31T23:00:00.5Z"}`},
	{"bound under not",
		`{"not":{"type":"string","format":"date","formatMinimum":"2000-01-01"}}`, `{"not":{"type":"string","format":"date","minimum":"2000-01-01"}}`},
	{"const 0 as enum", `{"type":"number","const":0}`, `{"type":"number","enum":[0]}`},
	{`const "" as enum`, `{"const":""}`, `{"enum":[""]}`},
	{"const false as enum", `{"not":{"const":false}}`, `{"not":{"enum":[false]}}`},
	{"const", `{"const":"Alice"}`, `{"const":"Alice"}`},
	{"const true", `{"const":true}`, `{"const":true}`},
	{"enum", `{"type":"string","enum":["a","b"]}`, `{"type":"string","enum":["a","b"]}`},
	{"number bound", `{"type":"number","minimum":18}`, `{"type":"number","minimum":18}`},
	{"negative number bound", `{"type":"number","exclusiveMaximum":-1.5}`, `{"type":"number","exclusiveMaximum":-1.5}`},
	{"lengths together", `{"type":"string","minLength":2,"maxLength":5}`, `{"type":"string","minLength":2,"maxLength":5}`},
	{"pattern", `{"type":"string","pattern":"^\\d{4}"}`, `{"type":"string","pattern":"^\\d{4}"}`},
	{"type only", `{"type":"number"}`, `{"type":"number"}`},
	{"date format only", `{"type":"string","format":"date-time"}`, `{"type":"string","format":"date-time"}`},
	{"annotations", `{"title":"t","description":"d","$comment":"c","type":"string"}`, `{"title":"t","description":"d","$comment":"c","type":"string"}`},
	{"annotations beside not", `{"description":"d","not":{"const":"x"}}`, `{"description":"d","not":{"const":"x"}}`},
}

// TestFilterTranslatedForACAPy: the filters ACA-Py reads with their
// meaning reach it in the form it compares: v2 date bounds under the v1
// names, date-time bounds in UTC, consts Python reads false as enums.
func TestFilterTranslatedForACAPy(t *testing.T) {
	for _, tt := range translatedFilters {
		t.Run(tt.name, func(t *testing.T) {
			body, err := buildCreate(peWithFilter(tt.filter))
			if err != nil {
				t.Fatalf("buildCreate: %v", err)
			}
			if got, want := canonical(t, secondFilter(t, body)), canonical(t, tt.sent); got != want {
				t.Errorf("sent filter %s, want %s", got, want)
			}
		})
	}
}

// What ACA-Py does with a filter proofgate refuses for it.
const (
	refuses = "refuses" // answers the create-request with an error
	drops   = "drops"   // keeps less of the filter than it is sent
	skips   = "skips"   // keeps it, but its evaluation ignores part of it or matches nothing
)

// filterAt is the path of the second field's filter in peWithFilter.
const filterAt = "presentationDefinition.input_descriptors[0].constraints.fields[1].filter"

// refusedFilters are filters refused for ACA-Py, the path under filterAt
// of what is named, and why: TestFilterRefusedForACAPy checks the
// refusal, TestRealACAPyRefusedFilters what ACA-Py does with those it
// refuses or drops part of.
var refusedFilters = []struct{ name, filter, field, acapy string }{
	// Dropped keywords.
	{"contains", `{"type":"array","contains":{"const":"X"}}`, ".contains", drops},
	{"items", `{"items":{"type":"string"}}`, ".items", drops},
	{"allOf", `{"type":"string","allOf":[{"minLength":1}]}`, ".allOf", drops},
	{"multipleOf", `{"type":"number","multipleOf":2}`, ".multipleOf", drops},
	{"$ref", `{"$ref":"#/definitions/x","definitions":{"x":{}}}`, ".$ref", drops},
	{"quoted keyword", `{"type":"string","a.b":1}`, `["a.b"]`, drops},
	{"beside not", `{"type":"string","not":{"const":"x"}}`, ".type", drops},
	// Types.
	{"type list", `{"type":["string","number"]}`, ".type", refuses},
	{"integer", `{"type":"integer","minimum":1}`, ".type", skips},
	{"boolean", `{"type":"boolean"}`, ".type", skips},
	// not.
	{"not true", `{"not":true}`, ".not", refuses},
	{"not empty", `{"not":{}}`, ".not", skips},
	{"not in not", `{"not":{"not":{"const":"x"}}}`, ".not.not", refuses},
	// Filters that match nothing at ACA-Py.
	{"empty", `{}`, "", skips},
	{"annotations only", `{"title":"x"}`, "", drops},
	{"true", `true`, "", refuses},
	{"pattern without type", `{"pattern":"^a"}`, ".pattern", skips},
	{"bound without type", `{"minimum":5}`, ".minimum", skips},
	{"format without type", `{"format":"date"}`, ".format", skips},
	// Formats.
	{"email", `{"type":"string","format":"email"}`, ".format", skips},
	{"format beside number", `{"type":"number","format":"date"}`, ".format", skips},
	{"format beside pattern", `{"type":"string","format":"date","pattern":"^19"}`, ".format", skips},
	{"format beside const", `{"type":"string","format":"date","const":"2000-01-01"}`, ".format", skips},
	// One check per filter.
	{"two date bounds", `{"type":"string","format":"date","formatMinimum":"2000-01-01","formatMaximum":"2010-01-01"}`, ".formatMinimum", skips},
	{"two number bounds", `{"type":"number","minimum":1,"maximum":9}`, ".minimum", skips},
	{"pattern and length", `{"type":"string","pattern":"^a","minLength":2}`, ".pattern", skips},
	{"const and enum", `{"const":"x","enum":["x"]}`, ".enum", skips},
	// Values Python reads false, or ACA-Py cannot compare.
	{"minLength 0", `{"type":"string","minLength":0}`, ".minLength", skips},
	{"maxLength 0", `{"type":"string","maxLength":0}`, ".maxLength", skips},
	{`pattern ""`, `{"type":"string","pattern":""}`, ".pattern", skips},
	{"minimum 0", `{"type":"number","minimum":0}`, ".minimum", skips},
	{"exclusiveMinimum 0.0", `{"type":"number","exclusiveMinimum":0.0}`, ".exclusiveMinimum", skips},
	{"string bound beside number", `{"type":"number","minimum":"5"}`, ".minimum", skips},
	{"number bound beside string", `{"type":"string","minimum":5}`, ".minimum", skips},
	{"number bound beside a date", `{"type":"string","format":"date","minimum":20000101}`, ".minimum", skips},
	{"bound given twice", `{"type":"string","format":"date","minimum":"2000-01-01","formatMinimum":"2000-01-01"}`, ".formatMinimum", drops},
	{"length beside number", `{"type":"number","minLength":2}`, ".minLength", skips},
	{"const object", `{"const":{"a":1}}`, ".const", refuses},
	{"const null", `{"const":null}`, ".const", refuses},
	{"enum null", `{"enum":["a",null]}`, ".enum[1]", refuses},
	{"enum empty", `{"enum":[]}`, ".enum", skips},
}

// TestFilterRefusedForACAPy: a filter ACA-Py would drop part of, skip,
// fail to compare or refuse is refused with a 400 naming the keyword.
func TestFilterRefusedForACAPy(t *testing.T) {
	for _, tt := range refusedFilters {
		t.Run(tt.name, func(t *testing.T) {
			_, err := buildCreate(peWithFilter(tt.filter))
			var ue *agent.UnsupportedError
			if !errors.As(err, &ue) || ue.Field != filterAt+tt.field {
				t.Fatalf("got %v, want UnsupportedError on %s", err, filterAt+tt.field)
			}
			if !strings.Contains(ue.Message, "ACA-Py") {
				t.Errorf("message %q does not say it is the org's agent", ue.Message)
			}
		})
	}
}

// TestIndyRefusedForACAPy: restriction keys ACA-Py refuses (422) and
// attribute groups without restrictions are refused with a 400 naming
// them, referents and keys quoted as the validator quotes them.
func TestIndyRefusedForACAPy(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edit  func(*backend.IndyProofRequest)
		field string
	}{
		{"names without restrictions", func(r *backend.IndyProofRequest) {
			r.RequestedAttributes["attr2"] = backend.IndyAttribute{Names: []string{"a", "b"}}
		}, "proofFormats.indy.requested_attributes.attr2.restrictions"},
		{"names without restrictions, quoted referent", func(r *backend.IndyProofRequest) {
			r.RequestedAttributes["a.b"] = backend.IndyAttribute{Names: []string{"a", "b"}}
		}, `proofFormats.indy.requested_attributes["a.b"].restrictions`},
		{"issuer_id", func(r *backend.IndyProofRequest) {
			r.RequestedAttributes["attr1"] = backend.IndyAttribute{Name: "name", Restrictions: []map[string]string{
				{"cred_def_id": "Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag"}, {"schema_id": "Th7MpTaRZVRYnPiabds81Y:2:person:1.0", "issuer_id": "did:web:x"}}}
		}, "proofFormats.indy.requested_attributes.attr1.restrictions[1].issuer_id"},
		{"schema_issuer_id", func(r *backend.IndyProofRequest) {
			r.RequestedAttributes["attr1"] = backend.IndyAttribute{Name: "name", Restrictions: []map[string]string{{"schema_issuer_id": "did:web:x"}}}
		}, "proofFormats.indy.requested_attributes.attr1.restrictions[0].schema_issuer_id"},
		{"marker, quoted", func(r *backend.IndyProofRequest) {
			r.RequestedAttributes["attr1"] = backend.IndyAttribute{Name: "name", Restrictions: []map[string]string{{"attr::a.b::marker": "1"}}}
		}, `proofFormats.indy.requested_attributes.attr1.restrictions[0]["attr::a.b::marker"]`},
		{"rev_reg_id on a predicate", func(r *backend.IndyProofRequest) {
			r.RequestedPredicates["pred1"] = backend.IndyPredicate{Name: "age", PType: ">=", PValue: 18,
				Restrictions: []map[string]string{{"rev_reg_id": "Th7MpTaRZVRYnPiabds81Y:4:Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag:CL_ACCUM:0"}}}
		}, "proofFormats.indy.requested_predicates.pred1.restrictions[0].rev_reg_id"},
		{"first referent named", func(r *backend.IndyProofRequest) {
			for _, ref := range []string{"z", "b", "y", "c"} {
				r.RequestedAttributes[ref] = backend.IndyAttribute{Name: "n", Restrictions: []map[string]string{{"issuer_id": "did:web:x"}}}
			}
		}, "proofFormats.indy.requested_attributes.b.restrictions[0].issuer_id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := indyRequest()
			tt.edit(req.Indy)
			_, err := buildCreate(req)
			var ue *agent.UnsupportedError
			if !errors.As(err, &ue) || ue.Field != tt.field || !strings.Contains(ue.Message, "ACA-Py") {
				t.Fatalf("got %v, want UnsupportedError on %s", err, tt.field)
			}
		})
	}
}

// TestRefusalsNameEveryProblem: what ACA-Py cannot take is named all at
// once (every referent and key of an indy request, every filter of a
// definition), filters in the caller's spelling of the definition.
func TestRefusalsNameEveryProblem(t *testing.T) {
	req := indyRequest()
	for _, ref := range []string{"z", "b"} {
		req.Indy.RequestedAttributes[ref] = backend.IndyAttribute{Name: "n", Restrictions: []map[string]string{{"issuer_id": "did:web:x", "schema_issuer_id": "did:web:x"}}}
	}
	_, err := buildCreate(req)
	var ue *agent.UnsupportedError
	if !errors.As(err, &ue) {
		t.Fatalf("indy: %v", err)
	}
	var fields []string
	for _, p := range ue.Problems() {
		fields = append(fields, p[:strings.Index(p, ": ")])
	}
	want := []string{
		"proofFormats.indy.requested_attributes.b.restrictions[0].issuer_id",
		"proofFormats.indy.requested_attributes.b.restrictions[0].schema_issuer_id",
		"proofFormats.indy.requested_attributes.z.restrictions[0].issuer_id",
		"proofFormats.indy.requested_attributes.z.restrictions[0].schema_issuer_id",
	}
	if !slices.Equal(fields, want) {
		t.Errorf("indy refusals %q, want %q", fields, want)
	}

	pe := peRequest()
	pe.DefinitionPath, pe.DescriptorsKey = backend.ListDefinitionPath, "inputDescriptors"
	pe.PresentationDefinition = json.RawMessage(`{"id":"32f54163-7166-48f1-93d8-ff217bdb0653","input_descriptors":[` +
		`{"id":"d1","constraints":{"fields":[{"path":["$.a"],"filter":{"type":"integer"}},{"path":["$.b"],"filter":{"type":"string"}}]}},` +
		`{"id":"d2","constraints":{"fields":[{"path":["$.c"],"filter":{"type":"array","items":{}}}]}}]}`)
	_, err = buildCreate(pe)
	if !errors.As(err, &ue) {
		t.Fatalf("pe: %v", err)
	}
	fields = nil
	for _, p := range ue.Problems() {
		fields = append(fields, p[:strings.Index(p, ": ")])
	}
	if len(fields) != 2 || !strings.HasPrefix(fields[0], "presentationDefinition[0].inputDescriptors[0].constraints.fields[0].filter") ||
		!strings.HasPrefix(fields[1], "presentationDefinition[0].inputDescriptors[1].constraints.fields[0].filter") {
		t.Errorf("filter refusals %q, want one for each refused filter, in the caller's spelling", fields)
	}
}

// TestACAPyRestrictionKey: the keys ACA-Py 1.4's pattern takes, as
// Python's re.match read it (checked with python3 against the pattern).
func TestACAPyRestrictionKey(t *testing.T) {
	for k, want := range map[string]bool{
		"schema_id": true, "schema_issuer_did": true, "schema_name": true, "schema_version": true,
		"issuer_did": true, "cred_def_id": true, "attr::name::value": true, "attr::a.b::value": true,
		"attr:::::value": true, "attr::x::value\n": true, "cred_def_idx": true,
		"attr::::value": false, "attr::x\n::value": false, "attr::x::value\n\n": false, "attr::x::marker": false,
		"issuer_id": false, "schema_issuer_id": false, "rev_reg_id": false, "xschema_id": false,
		"attr::x::valuex": false, "Schema_id": false, "": false,
	} {
		if got := acapyRestrictionKey(k); got != want {
			t.Errorf("acapyRestrictionKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestInvitationGoal: a goal_code always comes with a goal (ACA-Py's
// wallets refuse an invitation without one): the comment, else the code.
func TestInvitationGoal(t *testing.T) {
	for _, tt := range []struct {
		name, goalCode, comment string
		goal                    any
	}{
		{"comment as goal", "aries.vc.verify", "who are you", "who are you"},
		{"code as goal", "aries.vc.verify", "", "aries.vc.verify"},
		{"no goal code, no goal", "", "who are you", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := indyRequest()
			req.GoalCode, req.Comment = tt.goalCode, tt.comment
			var inv map[string]any
			if err := json.Unmarshal((&Backend{}).buildInvitation(backend.Org{ID: "o"}, req, "3fa85f64-5717-4562-b3fc-2c963f66afa6"), &inv); err != nil {
				t.Fatal(err)
			}
			if inv["goal"] != tt.goal || (tt.goalCode != "" && inv["goal_code"] != tt.goalCode) {
				t.Errorf("goal %v, goal_code %v; want %v, %v", inv["goal"], inv["goal_code"], tt.goal, tt.goalCode)
			}
		})
	}
}

// TestTypeSiblings: a filter with a check beside its type gets a field of
// the same path whose filter is its type alone (ACA-Py checks the value's
// type only there), optional as the field is; a filter that is its type
// alone, a negated one, or one without a type gets none.
func TestTypeSiblings(t *testing.T) {
	for _, tt := range []struct {
		name, filter string
		sibling      string // "": none
	}{
		{"number bound", `{"type":"number","minimum":18}`, `{"type":"number"}`},
		{"date bound", `{"type":"string","format":"date","formatMinimum":"2000-01-01"}`, `{"format":"date","type":"string"}`},
		{"pattern", `{"type":"string","pattern":"^A"}`, `{"type":"string"}`},
		{"type alone", `{"type":"string"}`, ""},
		{"type and format alone", `{"type":"string","format":"date"}`, ""},
		{"negated", `{"not":{"type":"string","const":"x"}}`, ""},
		{"const without type", `{"const":"x"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, err := buildCreate(peWithFilter(tt.filter))
			if err != nil {
				t.Fatal(err)
			}
			fields := bodyFields(t, body)
			switch {
			case tt.sibling == "" && len(fields) != 2:
				t.Fatalf("%d fields, want the two given", len(fields))
			case tt.sibling != "" && (len(fields) != 3 || !slices.Equal(fields[2].Path, []string{"$.credentialSubject.x"}) ||
				canonical(t, string(fields[2].Filter)) != canonical(t, tt.sibling)):
				t.Fatalf("fields %+v, want a third on $.credentialSubject.x with %s", fields, tt.sibling)
			}
		})
	}
}
