package main

import (
	"encoding/base64"
	"errors"
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
// under load. Answers are appended from templates, not marshalled (their
// bytes are what json.Marshal made of them: stub_test.go), so the stub
// takes as little of the machine as it can. args[0] is the listen address.
func stub(args []string) error {
	if len(args) != 1 {
		return errors.New("stub: want the listen address")
	}
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		return err
	}
	uuid.EnableRandPool()
	srv := &http.Server{Handler: http.HandlerFunc(serveStub), ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// threadNS derives a credo record id from its thread id, so the list call
// finds the record the create call made without the stub remembering it.
var threadNS = uuid.MustParse("6ba7b812-9dad-11d1-80b4-00c04fd430c8")

// serveStub answers without reading the request body: net/http discards
// what is left of a small body after the handler, between requests. Read
// to its end inside the handler, a body would make net/http start its
// background read of the connection there and abort it when the answer is
// written (deadline changes, a goroutine woken and waited for): the stub
// would spend more of the shared cores on each POST than an agent's HTTP
// layer must.
func serveStub(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	// credo-controller (didcomm layout, dedicated agent with a JWT)
	case strings.HasPrefix(p, "/didcomm/proofs"):
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			stubJSON(w, http.StatusUnauthorized, []byte(`{"message":"Unauthorized"}`))
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
		stubJSON(w, http.StatusNotFound, []byte(`{"message":"not found"}`))
	}
}

var contentTypeJSON = []string{"application/json; charset=utf-8"}

func stubJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = contentTypeJSON
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func credoNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// credoRecord appends a ProofExchangeRecord as credo-controller returns it.
func credoRecord(b []byte, id, thid, state string) []byte {
	ts := credoNow()
	b = append(b, `{"_tags":{"role":"verifier","state":"`...)
	b = append(b, state...)
	b = append(b, `","threadId":"`...)
	b = append(b, thid...)
	b = append(b, `"},"metadata":{},"id":"`...)
	b = append(b, id...)
	b = append(b, `","createdAt":"`...)
	b = append(b, ts...)
	b = append(b, `","updatedAt":"`...)
	b = append(b, ts...)
	b = append(b, `","protocolVersion":"v2","state":"`...)
	b = append(b, state...)
	b = append(b, `","role":"verifier","threadId":"`...)
	b = append(b, thid...)
	b = append(b, '"')
	if state == "done" {
		b = append(b, `,"isVerified":true`...)
	}
	return append(b, '}')
}

// credoCreateAnswer is create-request-oob's answer.
func credoCreateAnswer(host string) []byte {
	thid, oobID := uuid.NewString(), uuid.NewString()
	msg := make([]byte, 0, 192)
	msg = append(msg, `{"@id":"`...)
	msg = append(msg, uuid.NewString()...)
	msg = append(msg, `","@type":"https://didcomm.org/present-proof/2.0/request-presentation","formats":[],"~thread":{"thid":"`...)
	msg = append(msg, thid...)
	msg = append(msg, `"}}`...)
	inv := make([]byte, 0, 512)
	inv = append(inv, `{"@id":"`...)
	inv = append(inv, oobID...)
	inv = append(inv, `","@type":"https://didcomm.org/out-of-band/1.1/invitation","accept":["didcomm/aip1","didcomm/aip2;env=rfc19"],"requests~attach":[{"@id":"request-0","data":{"base64":"`...)
	inv = base64.StdEncoding.AppendEncode(inv, msg)
	inv = append(inv, `"},"mime-type":"application/json"}],"services":["did:peer:2.stub"]}`...)
	b := make([]byte, 0, 2*len(inv)+384)
	b = append(b, `{"invitation":`...)
	b = append(b, inv...)
	b = append(b, `,"invitationDid":"did:peer:2.stub","invitationUrl":"http://`...)
	b = append(b, host...)
	b = append(b, `?oob=`...)
	b = base64.RawURLEncoding.AppendEncode(b, inv)
	b = append(b, `","outOfBandRecord":{"id":"`...)
	b = append(b, uuid.NewString()...)
	b = append(b, `","role":"sender","state":"await-response"},"proofRecordThId":"`...)
	b = append(b, thid...)
	return append(b, `"}`...)
}

// recordOfThread is the record id the stub gives thread thid (and back).
func recordOfThread(thid string) string { return uuid.NewSHA1(threadNS, []byte(thid)).String() }

func credo(w http.ResponseWriter, r *http.Request, rest string) {
	switch {
	case r.Method == http.MethodPost && rest == "/create-request-oob":
		stubJSON(w, http.StatusOK, credoCreateAnswer(r.Host))
	case r.Method == http.MethodGet && rest == "":
		thid := r.URL.Query().Get("threadId")
		if thid == "" {
			stubJSON(w, http.StatusOK, []byte("[]"))
			return
		}
		b := credoRecord(append(make([]byte, 0, 512), '['), recordOfThread(thid), thid, "request-sent")
		stubJSON(w, http.StatusOK, append(b, ']'))
	case r.Method == http.MethodPost && strings.HasSuffix(rest, "/accept-presentation"):
		id := strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/accept-presentation")
		stubJSON(w, http.StatusOK, credoRecord(make([]byte, 0, 512), id, recordOfThread(id), "done"))
	case r.Method == http.MethodGet:
		id := strings.TrimPrefix(rest, "/")
		stubJSON(w, http.StatusOK, credoRecord(make([]byte, 0, 512), id, recordOfThread(id), "presentation-received"))
	default:
		stubJSON(w, http.StatusNotFound, []byte(`{"message":"not found"}`))
	}
}

func acapyNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z") }

// presEx appends a V20PresExRecord as ACA-Py returns it.
func presEx(b []byte, id, state string) []byte {
	ts := acapyNow()
	b = append(b, `{"pres_ex_id":"`...)
	b = append(b, id...)
	b = append(b, `","thread_id":"`...)
	b = append(b, recordOfThread(id)...)
	b = append(b, `","initiator":"self","role":"verifier","state":"`...)
	b = append(b, state...)
	b = append(b, '"')
	if state == "done" {
		b = append(b, `,"verified":"true"`...)
	}
	b = append(b, `,"created_at":"`...)
	b = append(b, ts...)
	b = append(b, `","updated_at":"`...)
	b = append(b, ts...)
	return append(b, `","trace":false,"auto_present":false,"auto_remove":false}`...)
}

// acapyInvitationAnswer is create-invitation's answer.
func acapyInvitationAnswer(host string) []byte {
	invID := uuid.NewString()
	inv := make([]byte, 0, 384)
	inv = append(inv, `{"@id":"`...)
	inv = append(inv, invID...)
	inv = append(inv, `","@type":"https://didcomm.org/out-of-band/1.1/invitation","accept":["didcomm/aip1","didcomm/aip2;env=rfc19"],"services":[{"id":"#inline","recipientKeys":["did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"],"serviceEndpoint":"http://`...)
	inv = append(inv, host...)
	inv = append(inv, `","type":"did-communication"}]}`...)
	ts := acapyNow()
	b := make([]byte, 0, 2*len(inv)+320)
	b = append(b, `{"created_at":"`...)
	b = append(b, ts...)
	b = append(b, `","invi_msg_id":"`...)
	b = append(b, invID...)
	b = append(b, `","invitation":`...)
	b = append(b, inv...)
	b = append(b, `,"invitation_url":"http://`...)
	b = append(b, host...)
	b = append(b, `?oob=`...)
	b = base64.RawURLEncoding.AppendEncode(b, inv)
	b = append(b, `","oob_id":"`...)
	b = append(b, uuid.NewString()...)
	b = append(b, `","state":"initial","trace":false,"updated_at":"`...)
	b = append(b, ts...)
	return append(b, `"}`...)
}

func acapy(w http.ResponseWriter, r *http.Request, p string) {
	rest, isRecord := strings.CutPrefix(p, "/present-proof-2.0/records/")
	switch {
	case r.Method == http.MethodPost && p == "/present-proof-2.0/create-request":
		stubJSON(w, http.StatusOK, presEx(make([]byte, 0, 384), uuid.NewString(), "request-sent"))
	case r.Method == http.MethodPost && p == "/out-of-band/create-invitation":
		stubJSON(w, http.StatusOK, acapyInvitationAnswer(r.Host))
	case isRecord && r.Method == http.MethodPost && strings.HasSuffix(rest, "/verify-presentation"):
		stubJSON(w, http.StatusOK, presEx(make([]byte, 0, 384), strings.TrimSuffix(rest, "/verify-presentation"), "done"))
	case isRecord && r.Method == http.MethodGet:
		stubJSON(w, http.StatusOK, presEx(make([]byte, 0, 384), rest, "presentation-received"))
	case isRecord && r.Method == http.MethodDelete:
		stubJSON(w, http.StatusOK, []byte("{}"))
	default:
		http.Error(w, "404: Not Found", http.StatusNotFound)
	}
}
