package acapy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
	"github.com/proofgate/proofgate/internal/upstream/agent"
	"github.com/proofgate/proofgate/internal/validate"
)

// rawDefinition is peWithFilter's definition as ACA-Py's schema takes it
// (schema in object form), with filter sent as it is.
func rawDefinition(filter string) json.RawMessage {
	return json.RawMessage(`{"id":"` + uuid.NewString() + `","input_descriptors":[{"id":"d1",` +
		`"schema":{"oneof_filter":false,"uri_groups":[[{"uri":"` + acapyenv.CredentialsV1Schema + `"}]]},"constraints":{"fields":[` +
		`{"path":["$.credentialSubject.givenName"],"filter":{"type":"string"}},` +
		`{"path":["$.credentialSubject.x"],"filter":` + filter + `}]}}]}`)
}

// keptFilter is the second field's filter of the definition an ACA-Py
// V20PresExRecord holds.
func keptFilter(t *testing.T, rec []byte) string {
	t.Helper()
	var r struct {
		ByFormat struct {
			PresRequest json.RawMessage `json:"pres_request"`
		} `json:"by_format"`
	}
	if err := json.Unmarshal(rec, &r); err != nil {
		t.Fatalf("record %s: %v", rec, err)
	}
	return secondFilter(t, []byte(`{"presentation_request":`+string(r.ByFormat.PresRequest)+`}`))
}

// TestRealACAPyTakesTranslatedFilters: proofgate's validator accepts each
// filter of translatedFilters, and ACA-Py takes what proofgate sends of it.
// (ACA-Py keeps the definition as it is sent; what its schema drops is
// dropped when it evaluates.)
func TestRealACAPyTakesTranslatedFilters(t *testing.T) {
	agent := acapyenv.Shared(t)
	b := realBackend(t, agent, nil)
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range translatedFilters {
		t.Run(tt.name, func(t *testing.T) {
			req := peWithFilter(tt.filter)
			if _, err := v.OOB("presentationExchange", []byte(`{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":`+string(req.PresentationDefinition)+`}`)); err != nil {
				t.Fatalf("proofgate's validator refuses the filter: %v", err)
			}
			res, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-real"}, req)
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			status, rec := agent.Call(t, http.MethodGet, "/present-proof-2.0/records/"+res.ProofRecord.ID, "", nil)
			if status != http.StatusOK {
				t.Fatalf("record: %d %s", status, rec)
			}
			if got, want := canonical(t, keptFilter(t, rec)), canonical(t, tt.sent); got != want {
				t.Errorf("ACA-Py holds %s, want %s", got, want)
			}
		})
	}
}

// TestRealACAPyRefusedFilters: the filters of refusedFilters that
// proofgate's validator accepts are refused with a 400 naming them, not
// sent to be a 502; and sent to ACA-Py as they are, ACA-Py refuses those
// refusedFilters says it refuses (a 422 or 500), and takes the others,
// which its schema then drops part of, or its evaluation skips (as read in
// acapy_agent/protocols/present_proof/dif: FilterSchema and
// DIFPresExchHandler.validate_patch).
func TestRealACAPyRefusedFilters(t *testing.T) {
	aca := acapyenv.Shared(t)
	b := realBackend(t, aca, nil)
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range refusedFilters {
		t.Run(tt.name, func(t *testing.T) {
			def := peWithFilter(tt.filter).PresentationDefinition
			if req, err := v.OOB("presentationExchange", []byte(`{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":`+string(def)+`}`)); err == nil {
				_, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-real"}, req)
				var ue *agent.UnsupportedError
				if !errors.As(err, &ue) || ue.Field != filterAt+tt.field {
					t.Errorf("validated, then %v; want UnsupportedError on %s", err, filterAt+tt.field)
				}
			}
			status, body := aca.Call(t, http.MethodPost, "/present-proof-2.0/create-request", "", map[string]any{
				"presentation_request": map[string]any{"dif": map[string]any{
					"options": map[string]any{"challenge": uuid.NewString()}, "presentation_definition": rawDefinition(tt.filter),
				}},
				"auto_remove": false,
			})
			if (status == http.StatusOK) == (tt.acapy == refuses) {
				t.Errorf("ACA-Py answers %d (%.300s); refusedFilters says it %s it", status, body, tt.acapy)
			}
		})
	}
}

// TestRealACAPyRestrictionKeys: restriction keys proofgate's validator
// accepts are served by ACA-Py, or refused with a 400 naming them where
// ACA-Py refuses them (422), never made a 502.
func TestRealACAPyRestrictionKeys(t *testing.T) {
	verifier := acapyenv.Shared(t)
	b := realBackend(t, verifier, nil)
	for _, r := range []map[string]string{
		{"schema_id": "Th7MpTaRZVRYnPiabds81Y:2:person:1.0"},
		{"schema_issuer_did": "Th7MpTaRZVRYnPiabds81Y"},
		{"schema_name": "person"},
		{"schema_version": "1.0"},
		{"issuer_did": "Th7MpTaRZVRYnPiabds81Y"},
		{"cred_def_id": "Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag"},
		{"attr::name::value": "Alice"},
		{"issuer_id": "did:web:issuer.example.com"},
		{"schema_issuer_id": "did:web:issuer.example.com"},
		{"attr::name::marker": "1"},
		{"rev_reg_id": "Th7MpTaRZVRYnPiabds81Y:4:Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag:CL_ACCUM:0"},
	} {
		var key string
		for key = range r {
		}
		t.Run(key, func(t *testing.T) {
			// What ACA-Py itself says of the key.
			status, body := verifier.Call(t, http.MethodPost, "/present-proof-2.0/create-request", "", map[string]any{
				"presentation_request": map[string]any{"indy": map[string]any{"name": "n", "version": "1.0",
					"requested_attributes": map[string]any{"attr1": map[string]any{"name": "name", "restrictions": []any{r}}},
					"requested_predicates": map[string]any{}}},
			})
			if (status == http.StatusOK) != acapyRestrictionKey(key) {
				t.Errorf("ACA-Py answers %d (%.200s), acapyRestrictionKey says %v", status, body, acapyRestrictionKey(key))
			}
			req := indyRequest()
			req.Indy.RequestedAttributes["attr1"] = backend.IndyAttribute{Name: "name", Restrictions: []map[string]string{r}}
			_, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-real"}, req)
			var ue *agent.UnsupportedError
			switch want := backend.Key("proofFormats.indy.requested_attributes.attr1.restrictions[0]", key); {
			case acapyRestrictionKey(key) && err != nil:
				t.Errorf("create: %v", err)
			case !acapyRestrictionKey(key) && (!errors.As(err, &ue) || ue.Field != want):
				t.Errorf("got %v, want UnsupportedError on %s", err, want)
			}
		})
	}
}

// TestRealACAPyGoalCodeInvitation: the invitation of a request with a
// goalCode is one an ACA-Py wallet receives (it refuses a goal_code
// without a goal).
func TestRealACAPyGoalCodeInvitation(t *testing.T) {
	verifier := acapyenv.Shared(t)
	holder := acapyenv.Shared(t, acapyenv.ExtraArgs(acapyenv.HolderArgs...))
	b := realBackend(t, verifier, nil)
	for _, comment := range []string{"please", ""} {
		req := indyRequest() // GoalCode "request-proof"
		req.Comment = comment
		res, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-real"}, req)
		if err != nil {
			t.Fatal(err)
		}
		status, body := holder.Call(t, http.MethodPost, "/out-of-band/receive-invitation", "", res.Invitation)
		if status != http.StatusOK {
			t.Errorf("comment %q: an ACA-Py wallet refuses the invitation: %d %s\ninvitation: %s", comment, status, body, res.Invitation)
		}
	}
}

// TestRealACAPyEnforcesDateBounds: a date bound of a presentation
// definition, written as PE v2 writes it, is enforced by the ACA-Py
// verifier: a presentation of a credential outside it does not end
// verified, one inside it does. The holder's credential has birthDate
// 1990-01-01 and issuanceDate 2024-01-01T00:00:00Z. "lax" holders are
// sent the definition without the filter, so that the verifier's check
// is what is tested, not the ACA-Py holder's refusal to present.
func TestRealACAPyEnforcesDateBounds(t *testing.T) {
	verifier := acapyenv.Shared(t)
	issuer := acapyenv.Shared(t, acapyenv.ExtraArgs(acapyenv.IssuerArgs...))
	holder := acapyenv.Shared(t, acapyenv.ExtraArgs(acapyenv.HolderArgs...))
	h := acapyenv.IssueTestCredential(t, issuer, holder, map[string]any{"givenName": "Alice", "birthDate": "1990-01-01", "score": 25, "age": "25"})
	b := realBackend(t, verifier, nil)
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const birth, issued = "$.credentialSubject.birthDate", "$.issuanceDate"
	for _, tt := range []struct {
		name, path, filter string
		lax, verified      bool
	}{
		{"after 2000, honest holder", birth, `{"type":"string","format":"date","formatMinimum":"2000-01-01"}`, false, false},
		{"after 2000", birth, `{"type":"string","format":"date","formatMinimum":"2000-01-01"}`, true, false},
		{"from its day (inclusive)", birth, `{"type":"string","format":"date","formatMinimum":"1990-01-01"}`, false, true},
		{"after its day (exclusive)", birth, `{"type":"string","format":"date","formatExclusiveMinimum":"1990-01-01"}`, true, false},
		{"before 1995", birth, `{"type":"string","format":"date","formatMaximum":"1995-01-01"}`, false, true},
		{"before its day (exclusive)", birth, `{"type":"string","format":"date","formatExclusiveMaximum":"1990-01-01"}`, true, false},
		// 2024-01-01T03:00:00+05:00 is 2023-12-31T22:00:00Z: ACA-Py would
		// read it as 03:00 UTC.
		{"issued after an instant with an offset", issued, `{"type":"string","format":"date-time","formatMinimum":"2024-01-01T03:00:00+05:00"}`, false, true},
		{"issued before an instant with an offset", issued, `{"type":"string","format":"date-time","formatMaximum":"2024-01-01T03:00:00+05:00"}`, true, false},
		// Beside a bound ACA-Py checks no type: the type's own field does.
		{"a number over a bound", "$.credentialSubject.score", `{"type":"number","minimum":18}`, false, true},
		{"a number written as a string", "$.credentialSubject.age", `{"type":"number","minimum":18}`, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // the exchanges are apart, and most of a refused one is waiting
			def := `{"id":"` + uuid.NewString() + `","input_descriptors":[{"id":"d1","schema":[{"uri":"` + acapyenv.CredentialsV1Schema + `"}],` +
				`"constraints":{"fields":[{"path":["` + tt.path + `"],"filter":` + tt.filter + `}]}}]}`
			req, err := v.OOB("presentationExchange", []byte(`{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":`+def+`}`))
			if err != nil {
				t.Fatalf("proofgate's validator refuses the definition: %v", err)
			}
			wait := 10 * time.Second // for a presentation that should not be taken
			if tt.verified {
				wait = time.Minute
			}
			if got := presentAndAccept(t, b, verifier, h, req, tt.lax, wait); got != tt.verified {
				t.Errorf("verified %v, want %v", got, tt.verified)
			}
		})
	}
}

// presentAndAccept creates req through b (on verifier), has h's holder
// answer it with its credential (lax: answering the definition without
// filters), waits up to wait for the verifier to take the presentation,
// and tells whether proofgate's accept ends verified.
func presentAndAccept(t *testing.T, b *Backend, verifier *acapyenv.Agent, h acapyenv.LDHolder, req backend.OOBRequest, lax bool, wait time.Duration) bool {
	t.Helper()
	ctx := context.Background()
	org := backend.Org{ID: "org-real"}
	res, err := b.SendOutOfBandRequest(ctx, org, req)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	inv := res.Invitation
	if lax {
		inv = withoutFilters(t, inv)
	}
	h.Holder.ReceiveInvitation(t, inv)
	thid := res.ProofRecord.ThreadID
	hrec := h.Holder.WaitPresEx(t, thid, time.Minute, "request-received")
	status, body := h.Holder.Call(t, http.MethodPost, "/present-proof-2.0/records/"+hrec.PresExID+"/send-presentation", "",
		map[string]any{"dif": map[string]any{"record_ids": map[string]any{"d1": []string{h.Credential.RecordID}}}})
	if status != http.StatusOK {
		t.Logf("the holder does not present: %d %.300s", status, body)
		return false
	}
	// A presentation that fails the definition is dropped on receipt (the
	// record stays request-sent): waiting is the only sign of it.
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if rec, _ := verifier.PresExByThread(t, thid); rec.State != backend.StateRequestSent {
			break
		}
	}
	rec, err := b.AcceptPresentation(ctx, org, res.ProofRecord.ID)
	if err != nil {
		t.Logf("accept: %v", err)
		return false
	}
	t.Logf("accepted: %s, isVerified %v", rec.State, rec.IsVerified != nil && *rec.IsVerified)
	return rec.IsVerified != nil && *rec.IsVerified
}

// withoutFilters removes the filters of the definition an ACA-Py
// connectionless invitation carries.
func withoutFilters(t *testing.T, inv json.RawMessage) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(inv, &m); err != nil {
		t.Fatal(err)
	}
	msg := m["requests~attach"].([]any)[0].(map[string]any)["data"].(map[string]any)["json"].(map[string]any)
	dif := msg["request_presentations~attach"].([]any)[0].(map[string]any)["data"].(map[string]any)["json"].(map[string]any)
	for _, d := range dif["presentation_definition"].(map[string]any)["input_descriptors"].([]any) {
		for _, f := range d.(map[string]any)["constraints"].(map[string]any)["fields"].([]any) {
			delete(f.(map[string]any), "filter")
		}
	}
	out, _ := json.Marshal(m)
	if strings.Contains(string(out), `"filter"`) {
		t.Fatalf("filters left in %s", out)
	}
	return out
}
