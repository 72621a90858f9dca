package openapitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// CredoOptions shape a fake credo-controller.
type CredoOptions struct {
	// Legacy serves the layout before credo-controller 2.0.0's token
	// management (2025-08): /proofs/... for a dedicated agent,
	// /multi-tenancy/proofs/...{tenantId} for tenants, the one static
	// token as a raw Authorization header. No document was published for
	// it; requests are checked against the same operations of the current
	// document after rewriting the path.
	Legacy bool
	// Tenants makes a multi-tenant agent with these tenant ids; none makes
	// a dedicated agent.
	Tenants []string
}

// Tokens of the fake credo-controller.
const (
	CredoDedicatedToken = "dedicated-agent-jwt"
	CredoRootToken      = "base-wallet-jwt"
)

// CredoAPIKey is the fake agent's API key (credo-controller's --apiKey):
// the only credential POST /agent/token takes.
const CredoAPIKey = "credo-api-key"

// Credo is a fake credo-controller: proof records per tenant, the
// create-request-oob, accept-presentation, list and get routes, the
// out-of-band records the creates made (GET /didcomm/oob?invitationId=,
// DELETE /didcomm/oob/{outOfBandId}), the agent and tenant tokens, and
// the tenant lookup.
//
// Behaviour that credo-controller 2.1.3 showed on loopback
// (shared/notes/interop.md) and that its OpenAPI document does not state:
//
//   - POST /agent/token takes the raw API key in Authorization; with a
//     "Bearer " prefix it answers 401 (the key is compared as the whole
//     header value). It returns the agent's JWT: the dedicated agent's, or
//     the base wallet's on a multi-tenant agent.
//   - A multi-tenant agent refuses the base wallet's token on every
//     /didcomm/proofs route: 401 {"message":"Unauthorized","details":"Unauthorized"}
//     (the base wallet may only manage tenants).
//   - POST /multi-tenancy/get-token/{tenantId} issues a token for any id,
//     known or not; a wrong tenant id fails only on the first real call,
//     with 401 {"message":"Unauthorized","details":"TenantRecord: record
//     with id <id> not found."}.
//   - 401 bodies carry the reason in "details"; "message" is just
//     "Unauthorized".
//   - accept-presentation on a record that has no presentation yet
//     (request-sent) answers 500 {"message":"CredoError: No presentation
//     message found for proof record with id '<id>'"}: Credo looks for the
//     presentation before it checks the state. Only a record that had one
//     (e.g. already done) gets 500 {"message":"CredoError: Proof record is
//     in invalid state done. Valid states are: presentation-received."}.
//   - GET /didcomm/proofs/{id} always gives the record's real state.
//
// GET /didcomm/proofs/{id}/form-data answers what Credo 0.5.19's
// V2ProofProtocol.getFormatData returns (read from @credo-ts/core's
// source; its OpenAPI example shows a proof record instead; the shape is
// checked against a real Credo verifier's by credo.TestRealCredoFormData):
// each message's format attachments by format key, {"request":
// {"presentationExchange":{"presentation_definition":…,"options":
// {"challenge":…}}}} (the DIF service always adds a challenge, an Askar
// nonce, and a domain only when asked) or {"request":{"indy":…}}, and
// "presentation" once one was received (Present).
type Credo struct {
	*Server
	opts CredoOptions

	mu        sync.Mutex
	records   map[string]map[string]map[string]any // tenant → id → ProofExchangeRecord JSON
	presented map[string]bool                      // record id → a presentation was received
	oobs      map[string]map[string]map[string]any // tenant → id → OutOfBandRecord JSON
	oobOf     map[string]string                    // proof record id → its invitation's out-of-band record id
	formData  map[string]map[string]any            // record id → its form-data answer
	tokens    map[string]string                    // tenant token → tenant id (known or not)
	issued    int
}

// NewCredo starts a fake credo-controller for the test.
func NewCredo(t testing.TB, opts CredoOptions) *Credo {
	c := &Credo{opts: opts, records: map[string]map[string]map[string]any{}, presented: map[string]bool{}, formData: map[string]map[string]any{},
		oobs: map[string]map[string]map[string]any{}, oobOf: map[string]string{}, tokens: map[string]string{}}
	for _, tn := range opts.Tenants {
		c.records[tn] = map[string]map[string]any{}
		c.oobs[tn] = map[string]map[string]any{}
	}
	if len(opts.Tenants) == 0 {
		c.records[""] = map[string]map[string]any{}
		c.oobs[""] = map[string]map[string]any{}
	}
	o := Options{Doc: CredoDoc, Handler: http.HandlerFunc(c.serve), Authenticate: c.authForm}
	if opts.Legacy {
		o.Rewrite = credoLegacyRewrite
	}
	c.Server = NewServer(t, o)
	return c
}

// credoLegacyRewrite maps the legacy layout to the current document.
func credoLegacyRewrite(method, p string) string {
	seg := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(seg) >= 1 && (seg[0] == "proofs" || seg[0] == "oob"):
		// The dedicated agent's /oob routes were credo-controller's
		// OutOfBandController of then: the same calls.
		return "/didcomm/" + strings.Join(seg, "/")
	case len(seg) == 4 && seg[0] == "multi-tenancy" && seg[1] == "form-data" && method == http.MethodGet:
		// MultiTenancyController's /form-data/:tenantId/:proofRecordId.
		return "/didcomm/proofs/" + seg[3] + "/form-data"
	case len(seg) >= 3 && seg[0] == "multi-tenancy" && seg[1] == "proofs":
		rest := seg[2:]
		switch {
		case method == http.MethodPost && rest[0] == "create-request-oob" && len(rest) == 2:
			return "/didcomm/proofs/create-request-oob"
		case method == http.MethodPost && len(rest) == 3 && rest[1] == "accept-presentation":
			return "/didcomm/proofs/" + rest[0] + "/accept-presentation"
		case method == http.MethodGet && len(rest) == 1:
			return "/didcomm/proofs"
		case method == http.MethodGet && len(rest) == 2:
			return "/didcomm/proofs/" + rest[0]
		}
	}
	return p
}

// authForm checks the credential's form against the security scheme:
// bearer for the document's "jwt", any value for "apiKey". The legacy
// layout used the raw static token on every route.
func (c *Credo) authForm(r *http.Request, scheme *openapi3.SecurityScheme, name string) error {
	h := r.Header.Get("Authorization")
	if h == "" {
		return fmt.Errorf("no Authorization header")
	}
	if c.opts.Legacy {
		if strings.HasPrefix(h, "Bearer ") {
			return fmt.Errorf("the legacy layout takes the raw token, not a Bearer credential")
		}
		return nil
	}
	if scheme.Type == "http" && scheme.Scheme == "bearer" {
		if _, ok := BearerOrRaw(h); !ok {
			return fmt.Errorf("scheme %s wants an Authorization: Bearer credential", name)
		}
	}
	return nil
}

// SetState moves a record to state, as the holder's answer would.
func (c *Credo) SetState(tenant, id, state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rec := c.records[tenant][id]; rec != nil {
		rec["state"] = state
		if state == "presentation-received" {
			rec["isVerified"] = true
			c.presented[id] = true
		}
	}
}

// Records returns a copy of tenant's records.
func (c *Credo) Records(tenant string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, r := range c.records[tenant] {
		cp := map[string]any{}
		for k, v := range r {
			cp[k] = v
		}
		out = append(out, cp)
	}
	return out
}

// RevokeTenantTokens forgets every issued tenant token (a restarted agent
// with a new secret), so the next tenant call gets a 401.
func (c *Credo) RevokeTenantTokens() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens = map[string]string{}
}

// TokensIssued counts get-token calls answered.
func (c *Credo) TokensIssued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.issued
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// unauthorized answers 401 the way credo-controller does: the reason in
// "details", "message" just "Unauthorized".
func (c *Credo) unauthorized(w http.ResponseWriter, details string) {
	writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Unauthorized", "details": details})
}

// tenantOf authenticates r and returns the tenant it acts for ("" for a
// dedicated agent or the base wallet), or false after answering 401.
func (c *Credo) tenantOf(w http.ResponseWriter, r *http.Request, op string) (string, bool) {
	h := r.Header.Get("Authorization")
	tok, _ := BearerOrRaw(h)
	c.mu.Lock()
	defer c.mu.Unlock()
	multi := len(c.opts.Tenants) > 0
	if op == "GetAgentToken" {
		// Security "apiKey": the whole header must be the key.
		if h != CredoAPIKey {
			c.unauthorized(w, "Unauthorized")
			return "", false
		}
		return "", true
	}
	if c.opts.Legacy {
		want := CredoDedicatedToken
		if multi {
			want = CredoRootToken
		}
		if tok != want {
			c.unauthorized(w, "Unauthorized")
			return "", false
		}
		if !multi {
			return "", true
		}
		seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if seg[0] != "multi-tenancy" {
			// A multi-tenant agent's own wallet has no proofs here.
			c.unauthorized(w, "Unauthorized")
			return "", false
		}
		if op == "GetTenantById" {
			return "", true
		}
		tn := seg[len(seg)-1]
		if seg[1] == "form-data" && len(seg) == 4 {
			tn = seg[2] // the one legacy route with the tenant before the record
		}
		if _, ok := c.records[tn]; !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"reason": "tenant not found"})
			return "", false
		}
		return tn, true
	}
	if !multi {
		if tok != CredoDedicatedToken {
			c.unauthorized(w, "Unauthorized")
			return "", false
		}
		if strings.HasPrefix(r.URL.Path, "/multi-tenancy/") {
			c.unauthorized(w, "Unauthorized: Multitenant routes are diabled for dedicated agent")
			return "", false
		}
		return "", true
	}
	if op == "GetTenantToken" || op == "GetTenantById" {
		if tok != CredoRootToken {
			c.unauthorized(w, "Unauthorized")
			return "", false
		}
		return "", true
	}
	if tok == CredoRootToken {
		// The base wallet may only manage tenants.
		c.unauthorized(w, "Unauthorized")
		return "", false
	}
	tn, ok := c.tokens[tok]
	if !ok {
		c.unauthorized(w, "Unauthorized")
		return "", false
	}
	if _, known := c.records[tn]; !known {
		// The token was issued for an id that is no tenant.
		c.unauthorized(w, fmt.Sprintf("TenantRecord: record with id %s not found.", tn))
		return "", false
	}
	return tn, true
}

func (c *Credo) serve(w http.ResponseWriter, r *http.Request) {
	op, params := Operation(r)
	tenant, ok := c.tenantOf(w, r, op)
	if !ok {
		return
	}
	notFound := func(id string) {
		if c.opts.Legacy {
			writeJSON(w, http.StatusNotFound, map[string]string{"reason": fmt.Sprintf("proof with proofRecordId %q not found.", id)})
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"message": fmt.Sprintf("ProofRecord: record with id %s not found.", id)})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch op {
	case "GetAgentToken":
		tok := CredoDedicatedToken
		if len(c.opts.Tenants) > 0 {
			tok = CredoRootToken
		}
		writeJSON(w, http.StatusOK, map[string]string{"token": tok})

	case "GetTenantById":
		tn := params["tenantId"]
		if _, ok := c.records[tn]; !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"reason": fmt.Sprintf("Tenant with id: %s not found.", tn)})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"_tags": map[string]any{}, "metadata": map[string]any{}, "id": tn,
			"createdAt": now(), "config": map[string]any{"label": "tenant " + tn},
		})

	case "GetTenantToken":
		// Issued for any id: the agent does not look the tenant up here.
		tn := params["tenantId"]
		c.issued++
		tok := fmt.Sprintf("tenant-jwt-%s-%d", tn, c.issued)
		c.tokens[tok] = tn
		writeJSON(w, http.StatusOK, map[string]string{"token": tok})

	case "CreateRequest":
		var body map[string]any
		_ = json.Unmarshal(mustBody(r), &body)
		c.create(w, r, tenant, body)

	case "GetAllProofs":
		th := r.URL.Query().Get("threadId")
		out := []map[string]any{}
		for _, rec := range c.records[tenant] {
			if th == "" || rec["threadId"] == th {
				out = append(out, rec)
			}
		}
		writeJSON(w, http.StatusOK, out)

	case "GetProofById":
		id := params["proofRecordId"]
		rec := c.records[tenant][id]
		if rec == nil {
			notFound(id)
			return
		}
		writeJSON(w, http.StatusOK, rec)

	case "ProofFormData":
		id := params["proofRecordId"]
		if c.records[tenant][id] == nil {
			notFound(id)
			return
		}
		writeJSON(w, http.StatusOK, c.formData[id])

	case "AcceptPresentation":
		id := params["proofRecordId"]
		rec := c.records[tenant][id]
		if rec == nil {
			notFound(id)
			return
		}
		if !c.presented[id] {
			writeJSON(w, http.StatusInternalServerError, map[string]string{
				"message": fmt.Sprintf("CredoError: No presentation message found for proof record with id '%s'", id),
			})
			return
		}
		if st := rec["state"]; st != "presentation-received" {
			writeJSON(w, http.StatusInternalServerError, map[string]string{
				"message": fmt.Sprintf("CredoError: Proof record is in invalid state %s. Valid states are: presentation-received.", st),
			})
			return
		}
		rec["state"] = "done"
		rec["updatedAt"] = now()
		writeJSON(w, http.StatusOK, rec)

	case "GetAllOutOfBandRecords", "DeleteOutOfBandRecord":
		c.serveOOB(w, r, op, tenant, params)

	default:
		writeJSON(w, http.StatusNotImplemented, map[string]string{"message": "not faked: " + op})
	}
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// verifierRecord is a new proof record of the verifier, as credo-controller
// answers it.
func verifierRecord(id, thid string, protocolVersion any) map[string]any {
	ts := now()
	return map[string]any{
		"_tags":           map[string]any{"state": "request-sent", "threadId": thid, "role": "verifier"},
		"metadata":        map[string]any{},
		"id":              id,
		"createdAt":       ts,
		"updatedAt":       ts,
		"protocolVersion": protocolVersion,
		"state":           "request-sent",
		"role":            "verifier",
		"threadId":        thid,
	}
}

// AddRecord makes a proof request in tenant's wallet as the agent's own
// API would, not through proofgate, and returns its record id.
func (c *Credo) AddRecord(tenant string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := uuid.NewString()
	c.records[tenant][id] = verifierRecord(id, uuid.NewString(), "v2")
	c.formData[id] = map[string]any{"request": requestFormData(map[string]any{"proofFormats": map[string]any{"indy": map[string]any{
		"name": "made elsewhere", "version": "1.0", "requested_attributes": map[string]any{}, "requested_predicates": map[string]any{},
	}}})}
	return id
}

func (c *Credo) create(w http.ResponseWriter, r *http.Request, tenant string, body map[string]any) {
	id, thid, oobID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	rec := verifierRecord(id, thid, body["protocolVersion"])
	for _, k := range []string{"parentThreadId", "autoAcceptProof"} {
		if v, ok := body[k]; ok {
			rec[k] = v
		}
	}
	c.records[tenant][id] = rec
	c.formData[id] = map[string]any{"request": requestFormData(body)}

	reqMsg := map[string]any{
		"@type":   "https://didcomm.org/present-proof/2.0/request-presentation",
		"@id":     uuid.NewString(),
		"~thread": map[string]any{"thid": thid},
		"formats": []any{},
	}
	rb, _ := json.Marshal(reqMsg)
	inv := map[string]any{
		"@type":       "https://didcomm.org/out-of-band/1.1/invitation",
		"@id":         oobID,
		"messageType": "https://didcomm.org/out-of-band/1.1/invitation",
		"accept":      []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"},
		"services":    []string{"did:peer:2.fake"},
		"requests~attach": []any{map[string]any{
			"@id": "request-0", "mime-type": "application/json",
			"data": map[string]any{"base64": base64.StdEncoding.EncodeToString(rb)},
		}},
	}
	if l, ok := body["label"]; ok {
		inv["label"] = l
	}
	if g, ok := body["goalCode"]; ok {
		inv["goal_code"] = g
	}
	ib, _ := json.Marshal(inv)
	oob := newOOBRecord(inv)
	oobRecID := oob["id"].(string)
	c.oobs[tenant][oobRecID] = oob
	c.oobOf[id] = oobRecID
	invDID := "did:peer:2.fake"
	if d, ok := body["invitationDid"].(string); ok && d != "" {
		invDID = ""
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"invitationUrl":   "http://" + r.Host + "?oob=" + base64.RawURLEncoding.EncodeToString(ib),
		"invitation":      inv,
		"outOfBandRecord": oob,
		"invitationDid":   invDID,
		"proofRecordThId": thid,
		"proofMessageId":  reqMsg["@id"],
	})
}

func mustBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body) // already read and capped by Server
	return b
}
