package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// stub is the stub-agent role: credo-controller's and ACA-Py's calls that
// proofgate makes, answered from memory with the documented shapes (the
// same shapes internal/upstream/openapitest checks against the agents'
// OpenAPI documents), so the agent costs as little as possible and what is
// measured is proofgate. It keeps no state: a record id names the record,
// and accept answers "done" every time, so one record can be accepted
// under load. args[0] is the listen address.
func stub(args []string) error {
	if len(args) != 1 {
		return errors.New("stub: want the listen address")
	}
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(serveStub), ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// threadNS derives a credo record id from its thread id, so the list call
// finds the record the create call made without the stub remembering it.
var threadNS = uuid.MustParse("6ba7b812-9dad-11d1-80b4-00c04fd430c8")

func serveStub(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	p := r.URL.Path
	switch {
	// credo-controller (didcomm layout, dedicated agent with a JWT)
	case strings.HasPrefix(p, "/didcomm/proofs"):
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			stubJSON(w, http.StatusUnauthorized, map[string]string{"message": "Unauthorized"})
			return
		}
		credo(w, r, strings.TrimPrefix(p, "/didcomm/proofs"))
	// ACA-Py admin API
	case strings.HasPrefix(p, "/present-proof-2.0/") || p == "/out-of-band/create-invitation":
		if r.Header.Get("X-API-Key") == "" {
			http.Error(w, "401: Unauthorized", http.StatusUnauthorized)
			return
		}
		acapy(w, r, p)
	default:
		stubJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
	}
}

func stubJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func credoNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// credoRecord is a ProofExchangeRecord as credo-controller returns it.
type credoRecord struct {
	Tags            map[string]string `json:"_tags"`
	Metadata        map[string]any    `json:"metadata"`
	ID              string            `json:"id"`
	CreatedAt       string            `json:"createdAt"`
	UpdatedAt       string            `json:"updatedAt"`
	ProtocolVersion string            `json:"protocolVersion"`
	State           string            `json:"state"`
	Role            string            `json:"role"`
	ThreadID        string            `json:"threadId"`
	IsVerified      *bool             `json:"isVerified,omitempty"`
}

func newCredoRecord(id, thid, state string) credoRecord {
	ts := credoNow()
	rec := credoRecord{
		Tags:     map[string]string{"state": state, "threadId": thid, "role": "verifier"},
		Metadata: map[string]any{}, ID: id, CreatedAt: ts, UpdatedAt: ts,
		ProtocolVersion: "v2", State: state, Role: "verifier", ThreadID: thid,
	}
	if state == "done" {
		t := true
		rec.IsVerified = &t
	}
	return rec
}

func credo(w http.ResponseWriter, r *http.Request, rest string) {
	switch {
	case r.Method == http.MethodPost && rest == "/create-request-oob":
		thid, oobID := uuid.NewString(), uuid.NewString()
		msg, _ := json.Marshal(map[string]any{
			"@type": "https://didcomm.org/present-proof/2.0/request-presentation", "@id": uuid.NewString(),
			"~thread": map[string]string{"thid": thid}, "formats": []any{},
		})
		inv := map[string]any{
			"@type": "https://didcomm.org/out-of-band/1.1/invitation", "@id": oobID,
			"accept": []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"}, "services": []string{"did:peer:2.stub"},
			"requests~attach": []any{map[string]any{"@id": "request-0", "mime-type": "application/json",
				"data": map[string]string{"base64": base64.StdEncoding.EncodeToString(msg)}}},
		}
		ib, _ := json.Marshal(inv)
		stubJSON(w, http.StatusOK, map[string]any{
			"invitationUrl":   "http://" + r.Host + "?oob=" + base64.RawURLEncoding.EncodeToString(ib),
			"invitation":      json.RawMessage(ib),
			"outOfBandRecord": map[string]any{"id": uuid.NewString(), "state": "await-response", "role": "sender"},
			"invitationDid":   "did:peer:2.stub",
			"proofRecordThId": thid,
		})
	case r.Method == http.MethodGet && rest == "":
		thid := r.URL.Query().Get("threadId")
		if thid == "" {
			stubJSON(w, http.StatusOK, []any{})
			return
		}
		stubJSON(w, http.StatusOK, []credoRecord{newCredoRecord(uuid.NewSHA1(threadNS, []byte(thid)).String(), thid, "request-sent")})
	case r.Method == http.MethodPost && strings.HasSuffix(rest, "/accept-presentation"):
		id := strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/accept-presentation")
		stubJSON(w, http.StatusOK, newCredoRecord(id, uuid.NewSHA1(threadNS, []byte(id)).String(), "done"))
	case r.Method == http.MethodGet:
		id := strings.TrimPrefix(rest, "/")
		stubJSON(w, http.StatusOK, newCredoRecord(id, uuid.NewSHA1(threadNS, []byte(id)).String(), "presentation-received"))
	default:
		stubJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
	}
}

func acapyNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z") }

// presEx is a V20PresExRecord as ACA-Py returns it.
type presEx struct {
	PresExID    string `json:"pres_ex_id"`
	ThreadID    string `json:"thread_id"`
	Initiator   string `json:"initiator"`
	Role        string `json:"role"`
	State       string `json:"state"`
	Verified    string `json:"verified,omitempty"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
	Trace       bool   `json:"trace"`
	AutoPresent bool   `json:"auto_present"`
	AutoRemove  bool   `json:"auto_remove"`
}

func newPresEx(id, state string) presEx {
	ts := acapyNow()
	px := presEx{PresExID: id, ThreadID: uuid.NewSHA1(threadNS, []byte(id)).String(), Initiator: "self",
		Role: "verifier", State: state, CreatedAt: ts, UpdatedAt: ts}
	if state == "done" {
		px.Verified = "true"
	}
	return px
}

func acapy(w http.ResponseWriter, r *http.Request, p string) {
	rest, isRecord := strings.CutPrefix(p, "/present-proof-2.0/records/")
	switch {
	case r.Method == http.MethodPost && p == "/present-proof-2.0/create-request":
		stubJSON(w, http.StatusOK, newPresEx(uuid.NewString(), "request-sent"))
	case r.Method == http.MethodPost && p == "/out-of-band/create-invitation":
		invID := uuid.NewString()
		inv := map[string]any{
			"@type": "https://didcomm.org/out-of-band/1.1/invitation", "@id": invID,
			"accept": []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"},
			"services": []any{map[string]any{"id": "#inline", "type": "did-communication",
				"recipientKeys":   []string{"did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"},
				"serviceEndpoint": "http://" + r.Host}},
		}
		ib, _ := json.Marshal(inv)
		ts := acapyNow()
		stubJSON(w, http.StatusOK, map[string]any{
			"invi_msg_id": invID, "oob_id": uuid.NewString(), "state": "initial", "trace": false,
			"invitation": json.RawMessage(ib), "invitation_url": "http://" + r.Host + "?oob=" + base64.RawURLEncoding.EncodeToString(ib),
			"created_at": ts, "updated_at": ts,
		})
	case isRecord && r.Method == http.MethodPost && strings.HasSuffix(rest, "/verify-presentation"):
		stubJSON(w, http.StatusOK, newPresEx(strings.TrimSuffix(rest, "/verify-presentation"), "done"))
	case isRecord && r.Method == http.MethodGet:
		stubJSON(w, http.StatusOK, newPresEx(rest, "presentation-received"))
	case isRecord && r.Method == http.MethodDelete:
		stubJSON(w, http.StatusOK, map[string]any{})
	default:
		http.Error(w, "404: Not Found", http.StatusNotFound)
	}
}
