package openapitest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// Operations of the fake ACA-Py (its document has no operation ids).
const (
	ACAPyCreateRequest    = "POST /present-proof-2.0/create-request"
	ACAPyCreateInvitation = "POST /out-of-band/create-invitation"
	ACAPyVerify           = "POST /present-proof-2.0/records/{pres_ex_id}/verify-presentation"
	ACAPyGetRecord        = "GET /present-proof-2.0/records/{pres_ex_id}"
	ACAPyDeleteRecord     = "DELETE /present-proof-2.0/records/{pres_ex_id}"
	ACAPyWalletToken      = "POST /multitenancy/wallet/{wallet_id}/token"
	ACAPyDeleteInvitation = "DELETE /out-of-band/invitations/{invi_msg_id}"
)

// ACAPyOptions shape a fake ACA-Py admin API.
type ACAPyOptions struct {
	// APIKey, when set, is required as X-API-Key on every call.
	APIKey string
	// Wallets makes a multitenant agent with these wallet ids; tenant
	// calls then need "Authorization: Bearer <the wallet's latest token>".
	Wallets []string
}

// ACAPy is a fake ACA-Py admin API: presentation exchange records per
// wallet, connectionless invitations, verify-presentation and wallet
// tokens (a new token invalidates the previous one, as in ACA-Py).
type ACAPy struct {
	*Server
	opts ACAPyOptions

	mu      sync.Mutex
	records map[string]map[string]map[string]any // wallet → pres_ex_id → V20PresExRecord
	invites map[string]map[string]bool           // wallet → invi_msg_id of its out-of-band records
	tokens  map[string]string                    // wallet → its only valid token
	issued  int
}

// NewACAPy starts a fake ACA-Py for the test.
func NewACAPy(t testing.TB, opts ACAPyOptions) *ACAPy {
	a := &ACAPy{opts: opts, records: map[string]map[string]map[string]any{"": {}}, invites: map[string]map[string]bool{"": {}}, tokens: map[string]string{}}
	for _, w := range opts.Wallets {
		a.records[w] = map[string]map[string]any{}
		a.invites[w] = map[string]bool{}
	}
	a.Server = NewServer(t, Options{Doc: ACAPyDoc, Handler: http.HandlerFunc(a.serve), Authenticate: a.authForm})
	return a
}

// authForm: the document declares only the Authorization header (the
// multitenant bearer token); the admin X-API-Key is not in it. So only a
// tenant call of a multitenant agent must carry a Bearer credential.
func (a *ACAPy) authForm(r *http.Request, _ *openapi3.SecurityScheme, _ string) error {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil
	}
	if _, ok := BearerOrRaw(h); !ok {
		return errors.New("the Authorization header must be a Bearer token")
	}
	return nil
}

// IssueToken mints a wallet token as another client would, invalidating
// the one proofgate holds.
func (a *ACAPy) IssueToken(wallet string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.issue(wallet)
}

func (a *ACAPy) issue(wallet string) string {
	a.issued++
	tok := fmt.Sprintf("wallet-jwt-%s-%d", wallet, a.issued)
	a.tokens[wallet] = tok
	return tok
}

// TokensIssued counts tokens minted.
func (a *ACAPy) TokensIssued() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.issued
}

// SetState moves a record to state, as the holder's answer would.
func (a *ACAPy) SetState(wallet, id, state string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if rec := a.records[wallet][id]; rec != nil {
		rec["state"] = state
	}
}

// Invitations returns how many out-of-band records wallet holds.
func (a *ACAPy) Invitations(wallet string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.invites[wallet])
}

// Records returns a copy of a wallet's records.
func (a *ACAPy) Records(wallet string) []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []map[string]any
	for _, r := range a.records[wallet] {
		cp := map[string]any{}
		for k, v := range r {
			cp[k] = v
		}
		out = append(out, cp)
	}
	return out
}

func textError(w http.ResponseWriter, status int, reason string) {
	// aiohttp's HTTPException body: "<status>: <reason>", text/plain.
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "%d: %s", status, reason)
}

// wallet authenticates r and returns the wallet it acts for.
func (a *ACAPy) wallet(w http.ResponseWriter, r *http.Request, op string) (string, bool) {
	if a.opts.APIKey != "" && r.Header.Get("X-API-Key") != a.opts.APIKey {
		textError(w, http.StatusUnauthorized, "Unauthorized")
		return "", false
	}
	if strings.HasPrefix(op, "POST /multitenancy/") || len(a.opts.Wallets) == 0 {
		return "", true
	}
	tok, ok := BearerOrRaw(r.Header.Get("Authorization"))
	if !ok || tok == "" {
		return "", true // the base wallet
	}
	for wlt, cur := range a.tokens {
		if cur == tok {
			return wlt, true
		}
	}
	textError(w, http.StatusUnauthorized, "Token not valid.")
	return "", false
}

func stamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z") }

func (a *ACAPy) serve(w http.ResponseWriter, r *http.Request) {
	op, params := Operation(r)
	a.mu.Lock()
	defer a.mu.Unlock()
	wallet, ok := a.wallet(w, r, op)
	if !ok {
		return
	}
	recs := a.records[wallet]
	switch op {
	case ACAPyWalletToken:
		wid := params["wallet_id"]
		if _, ok := a.records[wid]; !ok || wid == "" {
			textError(w, http.StatusNotFound, "Wallet not found")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"token": a.issue(wid)})

	case ACAPyCreateRequest:
		var body struct {
			AutoVerify *bool `json:"auto_verify"`
		}
		_ = json.Unmarshal(mustBody(r), &body)
		id := uuid.NewString()
		rec := map[string]any{
			"pres_ex_id": id, "thread_id": uuid.NewString(), "initiator": "self", "role": "verifier",
			"state": "request-sent", "created_at": stamp(), "updated_at": stamp(), "trace": false,
			"auto_present": false, "auto_remove": false,
		}
		if body.AutoVerify != nil {
			rec["auto_verify"] = *body.AutoVerify
		}
		recs[id] = rec
		writeJSON(w, http.StatusOK, rec)

	case ACAPyCreateInvitation:
		var body struct {
			Attachments []struct{ ID, Type string } `json:"attachments"`
			MyLabel     string                      `json:"my_label"`
			GoalCode    string                      `json:"goal_code"`
		}
		_ = json.Unmarshal(mustBody(r), &body)
		var attach []any
		for _, at := range body.Attachments {
			rec := recs[at.ID]
			if rec == nil || at.Type != "present-proof" {
				textError(w, http.StatusBadRequest, "Unknown attachment "+at.ID)
				return
			}
			msg, _ := json.Marshal(map[string]any{
				"@type": "https://didcomm.org/present-proof/2.0/request-presentation", "@id": uuid.NewString(),
				"~thread": map[string]any{"thid": rec["thread_id"]},
			})
			attach = append(attach, map[string]any{"@id": "request-0", "mime-type": "application/json",
				"data": map[string]any{"base64": base64.StdEncoding.EncodeToString(msg)}})
		}
		invID := uuid.NewString()
		inv := map[string]any{
			"@type": "https://didcomm.org/out-of-band/1.1/invitation", "@id": invID,
			"accept": []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"},
			"services": []any{map[string]any{"id": "#inline", "type": "did-communication",
				"recipientKeys":   []string{"did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"},
				"serviceEndpoint": "http://" + r.Host}},
			"requests~attach": attach,
		}
		if body.MyLabel != "" {
			inv["label"] = body.MyLabel
		}
		if body.GoalCode != "" {
			inv["goal_code"] = body.GoalCode
		}
		ib, _ := json.Marshal(inv)
		a.invites[wallet][invID] = true
		writeJSON(w, http.StatusOK, map[string]any{
			"invi_msg_id": invID, "oob_id": uuid.NewString(), "state": "initial", "trace": false,
			"invitation": inv, "invitation_url": "http://" + r.Host + "?oob=" + base64.RawURLEncoding.EncodeToString(ib),
			"created_at": stamp(), "updated_at": stamp(),
		})

	case ACAPyGetRecord:
		rec := recs[params["pres_ex_id"]]
		if rec == nil {
			textError(w, http.StatusNotFound, "Record not found: v20_pres_ex")
			return
		}
		writeJSON(w, http.StatusOK, rec)

	case ACAPyDeleteRecord:
		id := params["pres_ex_id"]
		if recs[id] == nil {
			textError(w, http.StatusNotFound, "Record not found: v20_pres_ex")
			return
		}
		delete(recs, id)
		writeJSON(w, http.StatusOK, map[string]any{})

	case ACAPyDeleteInvitation:
		id := params["invi_msg_id"]
		if !a.invites[wallet][id] {
			textError(w, http.StatusNotFound, "Record not found: oob_record")
			return
		}
		delete(a.invites[wallet], id)
		writeJSON(w, http.StatusOK, map[string]any{})

	case ACAPyVerify:
		id := params["pres_ex_id"]
		rec := recs[id]
		if rec == nil {
			textError(w, http.StatusNotFound, "Record not found: v20_pres_ex")
			return
		}
		if st := rec["state"]; st != "presentation-received" {
			textError(w, http.StatusBadRequest, fmt.Sprintf("Presentation exchange %s in %s state (must be presentation-received)", id, st))
			return
		}
		rec["state"], rec["verified"], rec["updated_at"] = "done", "true", stamp()
		writeJSON(w, http.StatusOK, rec)

	default:
		writeJSON(w, http.StatusNotImplemented, map[string]string{"message": "not faked: " + op})
	}
}
