package acapy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Flags that make an agent an issuer or a holder that acts on its own.
// Pass them with ExtraArgs when starting the agent.
var (
	// IssuerArgs: accept connection requests, and issue a credential as
	// soon as the holder requests it.
	IssuerArgs = []string{"--auto-accept-requests", "--auto-respond-credential-request"}
	// HolderArgs: accept invitations, request an offered credential and
	// store it when it arrives, and keep exchange records once done (so a
	// test can see the presentation's end state). Presentation requests are
	// left to the test (SendPresentation), so that it can choose what to
	// present.
	HolderArgs = []string{"--auto-accept-invites", "--auto-respond-credential-offer", "--auto-store-credential", "--preserve-exchange-records"}
)

// SubjectVocab is the inline JSON-LD context of TestCredential: every term
// of its subject and its type expand under this IRI, so that nothing is
// fetched from the network (ACA-Py caches only a few contexts offline:
// credentials/v1, security/v1-v2, did/v1).
const SubjectVocab = "https://proofgate.example/vocab#"

// TestCredentialType is TestCredential's own type, expanded through
// SubjectVocab to SubjectVocab+TestCredentialType.
const TestCredentialType = "ProofgateTestCredential"

// CredentialsV1Schema is the input descriptor schema URI that matches any
// W3C credential: the expanded IRI of the type VerifiableCredential. ACA-Py
// as holder needs a schema on every input descriptor (it fails with
// "'NoneType' object has no attribute 'uri_groups'" without one).
const CredentialsV1Schema = "https://www.w3.org/2018/credentials#VerifiableCredential"

// TestCredential returns an unsigned W3C credential from issuer (a did:key)
// about holder (a did:key) with the given subject claims, using only the
// bundled credentials/v1 context plus SubjectVocab inline.
func TestCredential(issuer, holder string, claims map[string]any) map[string]any {
	subject := map[string]any{"id": holder}
	for k, v := range claims {
		subject[k] = v
	}
	return map[string]any{
		"@context":          []any{"https://www.w3.org/2018/credentials/v1", map[string]any{"@vocab": SubjectVocab}},
		"type":              []any{"VerifiableCredential", TestCredentialType},
		"issuer":            issuer,
		"issuanceDate":      "2024-01-01T00:00:00Z",
		"credentialSubject": subject,
	}
}

// CreateDIDKey creates an Ed25519 did:key in the agent's wallet (token
// selects a sub-wallet; "" for the base wallet) and returns it.
func (a *Agent) CreateDIDKey(t testing.TB, token string) string {
	t.Helper()
	status, body := a.Call(t, http.MethodPost, "/wallet/did/create", token,
		map[string]any{"method": "key", "options": map[string]any{"key_type": "ed25519"}})
	if status != http.StatusOK {
		t.Fatalf("POST /wallet/did/create: %d %s", status, body)
	}
	var res struct {
		Result struct {
			DID string `json:"did"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &res); err != nil || res.Result.DID == "" {
		t.Fatalf("POST /wallet/did/create: unexpected answer %s (%v)", body, err)
	}
	return res.Result.DID
}

// Connect makes a DIDComm connection from inviter to invitee (out-of-band
// invitation with DID exchange 1.0, accepted automatically on both sides)
// and returns each side's connection id once both are active.
func Connect(t testing.TB, inviter, invitee *Agent) (inviterConn, inviteeConn string) {
	t.Helper()
	status, body := inviter.Call(t, http.MethodPost, "/out-of-band/create-invitation?auto_accept=true", "",
		map[string]any{"handshake_protocols": []string{"https://didcomm.org/didexchange/1.0"}, "my_label": "proofgate test issuer"})
	if status != http.StatusOK {
		t.Fatalf("inviter: POST /out-of-band/create-invitation: %d %s", status, body)
	}
	var oob struct {
		Invitation json.RawMessage `json:"invitation"`
		OOBID      string          `json:"oob_id"`
	}
	if err := json.Unmarshal(body, &oob); err != nil || oob.Invitation == nil {
		t.Fatalf("inviter: create-invitation answer %s (%v)", body, err)
	}
	status, body = invitee.Call(t, http.MethodPost, "/out-of-band/receive-invitation?auto_accept=true", "", oob.Invitation)
	if status != http.StatusOK {
		t.Fatalf("invitee: POST /out-of-band/receive-invitation: %d %s", status, body)
	}
	var rec struct {
		ConnectionID string `json:"connection_id"`
	}
	if err := json.Unmarshal(body, &rec); err != nil || rec.ConnectionID == "" {
		t.Fatalf("invitee: receive-invitation answer without connection_id: %s (%v)", body, err)
	}
	inviteeConn = rec.ConnectionID
	Eventually(t, 60*time.Second, "both sides of the connection active", func() bool {
		if inviterConn == "" {
			_, body := inviter.Call(t, http.MethodGet, "/connections?invitation_msg_id="+url.QueryEscape(invitationID(oob.Invitation)), "", nil)
			var list struct {
				Results []struct {
					ConnectionID string `json:"connection_id"`
				} `json:"results"`
			}
			if json.Unmarshal(body, &list) == nil && len(list.Results) == 1 {
				inviterConn = list.Results[0].ConnectionID
			}
		}
		return inviterConn != "" && connectionState(t, inviter, inviterConn) == "active" && connectionState(t, invitee, inviteeConn) == "active"
	})
	return inviterConn, inviteeConn
}

func invitationID(inv json.RawMessage) string {
	var m struct {
		ID string `json:"@id"`
	}
	_ = json.Unmarshal(inv, &m)
	return m.ID
}

func connectionState(t testing.TB, a *Agent, id string) string {
	_, body := a.Call(t, http.MethodGet, "/connections/"+id, "", nil)
	var c struct {
		State string `json:"state"`
	}
	_ = json.Unmarshal(body, &c)
	return c.State
}

// IssuedCredential is a W3C credential the holder stored.
type IssuedCredential struct {
	// RecordID is the holder's credential record id (its W3C credential
	// store), the id to name in a DIF send-presentation's record_ids.
	RecordID string
	// Credential is the signed credential as the holder stored it.
	Credential map[string]any
}

// IssueLDCredential issues credential (TestCredential's shape, unsigned)
// from issuer to holder over issue-credential 2.0 with the ld_proof format
// and an Ed25519Signature2018 proof, on the connection issuerConn, and
// returns what the holder stored. The issuer must have been started with
// IssuerArgs and the holder with HolderArgs; credential's issuer must be a
// did:key of the issuer's wallet (CreateDIDKey) and its subject id one of
// the holder's.
func IssueLDCredential(t testing.TB, issuer, holder *Agent, issuerConn string, credential map[string]any) IssuedCredential {
	t.Helper()
	status, body := issuer.Call(t, http.MethodPost, "/issue-credential-2.0/send-offer", "", map[string]any{
		"connection_id": issuerConn,
		"auto_issue":    true,
		"auto_remove":   false,
		"comment":       "proofgate test credential",
		"filter": map[string]any{"ld_proof": map[string]any{
			"credential": credential,
			"options":    map[string]any{"proofType": "Ed25519Signature2018"},
		}},
	})
	if status != http.StatusOK {
		t.Fatalf("issuer: POST /issue-credential-2.0/send-offer: %d %s", status, body)
	}
	var ex struct {
		ThreadID string `json:"thread_id"`
	}
	if err := json.Unmarshal(body, &ex); err != nil || ex.ThreadID == "" {
		t.Fatalf("issuer: send-offer answer without thread_id: %s (%v)", body, err)
	}
	// The holder drops its exchange record once the credential is stored
	// (ACA-Py keeps none without --preserve-exchange-records), so the
	// issuer's record tells: done once the holder acknowledged it.
	Eventually(t, 60*time.Second, "the holder acknowledged the credential", func() bool {
		_, body := issuer.Call(t, http.MethodGet, "/issue-credential-2.0/records?thread_id="+url.QueryEscape(ex.ThreadID), "", nil)
		var list struct {
			Results []struct {
				CredExRecord struct {
					State    string `json:"state"`
					ErrorMsg string `json:"error_msg"`
				} `json:"cred_ex_record"`
			} `json:"results"`
		}
		if json.Unmarshal(body, &list) != nil || len(list.Results) != 1 {
			return false
		}
		rec := list.Results[0].CredExRecord
		if rec.State == "abandoned" {
			t.Fatalf("credential exchange abandoned: %s", rec.ErrorMsg)
		}
		return rec.State == "done"
	})

	var found IssuedCredential
	subjectID := ""
	if s, ok := credential["credentialSubject"].(map[string]any); ok {
		subjectID, _ = s["id"].(string)
	}
	Eventually(t, 30*time.Second, "the credential in the holder's W3C store", func() bool {
		status, body := holder.Call(t, http.MethodPost, "/credentials/w3c", "", map[string]any{})
		if status != http.StatusOK {
			return false
		}
		var list struct {
			Results []struct {
				RecordID  string         `json:"record_id"`
				Cred      map[string]any `json:"cred_value"`
				SubjectID []string       `json:"subject_ids"`
			} `json:"results"`
		}
		if json.Unmarshal(body, &list) != nil {
			return false
		}
		for _, r := range list.Results {
			if subjectID == "" || contains(r.SubjectID, subjectID) {
				found = IssuedCredential{RecordID: r.RecordID, Credential: r.Cred}
				return true
			}
		}
		return false
	})
	return found
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// ReceiveInvitation has the agent receive an out-of-band invitation (for
// a connectionless proof request: one carrying requests~attach and no
// handshake) and returns the out-of-band record's state.
func (a *Agent) ReceiveInvitation(t testing.TB, invitation json.RawMessage) string {
	t.Helper()
	status, body := a.Call(t, http.MethodPost, "/out-of-band/receive-invitation", "", invitation)
	if status != http.StatusOK {
		t.Fatalf("POST /out-of-band/receive-invitation: %d %s", status, body)
	}
	var rec struct {
		State string `json:"state"`
	}
	_ = json.Unmarshal(body, &rec)
	return rec.State
}

// PresExRecord is what tests read of a V20PresExRecord.
type PresExRecord struct {
	PresExID string `json:"pres_ex_id"`
	ThreadID string `json:"thread_id"`
	State    string `json:"state"`
	Role     string `json:"role"`
	Verified string `json:"verified"`
	ErrorMsg string `json:"error_msg"`
}

// PresExByThread returns the agent's present-proof 2.0 record of thread
// thid (its role is the agent's), or false when it has none.
func (a *Agent) PresExByThread(t testing.TB, thid string) (PresExRecord, bool) {
	t.Helper()
	_, body := a.Call(t, http.MethodGet, "/present-proof-2.0/records?thread_id="+url.QueryEscape(thid), "", nil)
	var list struct {
		Results []PresExRecord `json:"results"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Results) == 0 {
		return PresExRecord{}, false
	}
	return list.Results[0], true
}

// WaitPresEx waits until the agent's record of thread thid is in one of
// states and returns it.
func (a *Agent) WaitPresEx(t testing.TB, thid string, timeout time.Duration, states ...string) PresExRecord {
	t.Helper()
	var rec PresExRecord
	Eventually(t, timeout, fmt.Sprintf("present-proof record of thread %s in %v", thid, states), func() bool {
		var ok bool
		if rec, ok = a.PresExByThread(t, thid); !ok {
			return false
		}
		for _, s := range states {
			if rec.State == s {
				return true
			}
		}
		return false
	})
	return rec
}

// SendPresentation has a holder answer its request record presExID with
// body, the send-presentation request: {"dif": {"record_ids": {...}}} for a
// DIF request, {"indy": {..., "self_attested_attributes": {...}}} for indy.
func (a *Agent) SendPresentation(t testing.TB, presExID string, body any) PresExRecord {
	t.Helper()
	status, out := a.Call(t, http.MethodPost, "/present-proof-2.0/records/"+presExID+"/send-presentation", "", body)
	if status != http.StatusOK {
		t.Fatalf("holder: POST /present-proof-2.0/records/%s/send-presentation: %d %s", presExID, status, out)
	}
	var rec PresExRecord
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("send-presentation answer %s: %v", out, err)
	}
	return rec
}

// Eventually polls cond every 200ms until it holds, failing t with what
// after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// LDHolder is a holder agent with a did:key JSON-LD credential, ready to
// answer presentation-exchange requests.
type LDHolder struct {
	Holder, Issuer *Agent
	// HolderDID and IssuerDID are the did:keys of the credential's subject
	// and issuer.
	HolderDID, IssuerDID string
	Credential           IssuedCredential
}

// IssueTestCredential connects issuer (started with IssuerArgs) to holder
// (started with HolderArgs), makes a did:key for each, and issues the
// holder a TestCredential with claims: the one call a test needs to get a
// holder that can present a W3C credential signed with
// Ed25519Signature2018, with no ledger and nothing fetched.
func IssueTestCredential(t testing.TB, issuer, holder *Agent, claims map[string]any) LDHolder {
	t.Helper()
	issuerConn, _ := Connect(t, issuer, holder)
	issuerDID := issuer.CreateDIDKey(t, "")
	holderDID := holder.CreateDIDKey(t, "")
	cred := IssueLDCredential(t, issuer, holder, issuerConn, TestCredential(issuerDID, holderDID, claims))
	return LDHolder{Holder: holder, Issuer: issuer, HolderDID: holderDID, IssuerDID: issuerDID, Credential: cred}
}

// PresExV1 is what tests read of a present-proof 1.0 V10PresentationExchange.
type PresExV1 struct {
	ID       string `json:"presentation_exchange_id"`
	ThreadID string `json:"thread_id"`
	State    string `json:"state"`
	Role     string `json:"role"`
	ErrorMsg string `json:"error_msg"`
}

// WaitPresExV1 waits until the agent's present-proof 1.0 record of thread
// thid is in one of states (1.0 spells them with underscores:
// request_received, presentation_sent, presentation_acked) and returns it.
func (a *Agent) WaitPresExV1(t testing.TB, thid string, timeout time.Duration, states ...string) PresExV1 {
	t.Helper()
	var rec PresExV1
	Eventually(t, timeout, fmt.Sprintf("present-proof 1.0 record of thread %s in %v", thid, states), func() bool {
		_, body := a.Call(t, http.MethodGet, "/present-proof/records?thread_id="+url.QueryEscape(thid), "", nil)
		var list struct {
			Results []PresExV1 `json:"results"`
		}
		if json.Unmarshal(body, &list) != nil || len(list.Results) == 0 {
			return false
		}
		rec = list.Results[0]
		for _, s := range states {
			if rec.State == s {
				return true
			}
		}
		return false
	})
	return rec
}

// SendPresentationV1 has a holder answer its present-proof 1.0 request
// record id with body ({"requested_attributes": {}, "requested_predicates":
// {}, "self_attested_attributes": {...}} for a self-attested answer).
func (a *Agent) SendPresentationV1(t testing.TB, id string, body any) {
	t.Helper()
	status, out := a.Call(t, http.MethodPost, "/present-proof/records/"+id+"/send-presentation", "", body)
	if status != http.StatusOK {
		t.Fatalf("holder: POST /present-proof/records/%s/send-presentation: %d %s", id, status, out)
	}
}

// SendProblemReport has a holder decline its present-proof 2.0 request
// record presExID with a problem report carrying description.
func (a *Agent) SendProblemReport(t testing.TB, presExID, description string) {
	t.Helper()
	status, out := a.Call(t, http.MethodPost, "/present-proof-2.0/records/"+presExID+"/problem-report", "", map[string]any{"description": description})
	if status != http.StatusOK {
		t.Fatalf("holder: POST /present-proof-2.0/records/%s/problem-report: %d %s", presExID, status, out)
	}
}
