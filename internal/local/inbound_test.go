package local

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// answer reads the invitation and returns the wallet's packed
// presentation, signed (the local backend verifies W3C presentations),
// and the verifier's key.
func answer(t *testing.T, w *wallet.T, invitationURL string) ([]byte, string) {
	t.Helper()
	inv := w.ReadInvitation(invitationURL)
	h := w.Holder()
	ctx := context.Background()
	cred, err := h.Issue(ctx, wallet.CredentialOptions{Subject: map[string]any{"licenseNumber": "WA-1"}})
	if err != nil {
		t.Fatal(err)
	}
	vp, err := h.SignedVP(ctx, inv, wallet.PresentationOptions{}, wallet.Submitted{DescriptorID: "license", Credential: cred})
	if err != nil {
		t.Fatal(err)
	}
	return w.Present(inv, vp, false), inv.VerifierKey
}

func peOOB() backend.OOBRequest {
	return backend.OOBRequest{
		RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV2, ReuseConnection: true,
		PresentationDefinition: json.RawMessage(`{"id":"5591656f-5b5d-40f8-ab5c-9041c8e3a6a0","input_descriptors":[{"id":"license","constraints":{"fields":[{"path":["$.credentialSubject.licenseNumber"]}]}}]}`),
	}
}

func post(t *testing.T, srv *httptest.Server, method, contentType string, body []byte) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+"/didcomm", bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestServeDIDComm(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com","allow_private_endpoints":true,"storage":"STORAGE"}`)
	t.Cleanup(func() { _ = l.Cleanup() })
	if l.DIDCommPath() != "/didcomm" {
		t.Fatalf("DIDCommPath = %q", l.DIDCommPath())
	}
	srv := httptest.NewServer(http.HandlerFunc(l.ServeDIDComm))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	w := wallet.NewT(t, wallet.Options{})
	res, err := l.SendOutOfBandRequest(ctx, org, peOOB())
	if err != nil {
		t.Fatal(err)
	}
	env, verifierKey := answer(t, w, res.InvitationURL)

	_, stranger, _ := didkey.Generate()
	notOurs, _ := didcomm.Pack([]byte(`{}`), []string{didkey.Verkey(stranger.Public().(ed25519.PublicKey))}, nil)
	noThread, _ := didcomm.Pack([]byte(`{"@type":"https://didcomm.org/present-proof/2.0/presentation","~thread":{"thid":"`+uuid.NewString()+`"}}`), []string{verifierKey}, nil)
	bad := `{"statusCode":400,"error":"Bad Request"}` + "\n"
	tests := []struct {
		name, method, contentType string
		body                      []byte
		status                    int
		wantBody                  string
	}{
		{"GET", http.MethodGet, "", nil, http.StatusMethodNotAllowed, `{"statusCode":405,"error":"Method Not Allowed"}` + "\n"},
		{"no content type", http.MethodPost, "", env, http.StatusUnsupportedMediaType, ""},
		{"text/plain", http.MethodPost, "text/plain", env, http.StatusUnsupportedMediaType, ""},
		{"too large", http.MethodPost, "application/didcomm-envelope-enc", bytes.Repeat([]byte(" "), MaxDIDCommBody+1), http.StatusRequestEntityTooLarge, ""},
		{"garbage", http.MethodPost, "application/didcomm-envelope-enc", []byte("garbage"), http.StatusBadRequest, bad},
		{"not for us", http.MethodPost, "application/didcomm-envelope-enc", notOurs, http.StatusBadRequest, bad},
		{"unknown thread", http.MethodPost, "application/didcomm-envelope-enc", noThread, http.StatusBadRequest, bad},
		{"presentation", http.MethodPost, "application/didcomm-envelope-enc", env, http.StatusAccepted, ""},
		// the same delivery again, as agents retrying would send it
		{"again as ssi-agent-wire", http.MethodPost, "application/ssi-agent-wire", env, http.StatusAccepted, ""},
		{"again as JSON", http.MethodPost, "application/json; charset=utf-8", env, http.StatusAccepted, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, hdr := post(t, srv, tt.method, tt.contentType, tt.body)
			if status != tt.status || (tt.wantBody != "" && body != tt.wantBody) {
				t.Fatalf("%d %q", status, body)
			}
			if status == http.StatusMethodNotAllowed && hdr.Get("Allow") != "POST" {
				t.Fatalf("Allow %q", hdr.Get("Allow"))
			}
		})
	}

	rec, err := l.LoadRecord(ctx, res.ProofRecord.ID)
	// Verified by the W3C verifier the backend configures.
	if err != nil || rec.State != backend.StatePresentationReceived || rec.IsVerified == nil || !*rec.IsVerified {
		t.Fatalf("record %+v, %v", rec, err)
	}
	rec, err = l.AcceptPresentation(ctx, org, rec.ID)
	if err != nil || rec.State != backend.StateDone || rec.Metadata["ack"].(map[string]any)["sent"] != true {
		t.Fatalf("accept: %+v, %v", rec, err)
	}
	{
		m := w.Next().Raw
		var ack struct {
			Type   string            `json:"@type"`
			Status string            `json:"status"`
			Thread map[string]string `json:"~thread"`
		}
		if json.Unmarshal(m, &ack) != nil || ack.Type != "https://didcomm.org/present-proof/2.0/ack" || ack.Status != "OK" || ack.Thread["thid"] != rec.ThreadID {
			t.Fatalf("ack %s", m)
		}
	}
}

// TestServeDIDCommGuard: by default the ack is not sent to a loopback
// endpoint; the accept still succeeds.
func TestServeDIDCommGuard(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com","storage":"STORAGE"}`)
	t.Cleanup(func() { _ = l.Cleanup() })
	srv := httptest.NewServer(http.HandlerFunc(l.ServeDIDComm))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	w := wallet.NewT(t, wallet.Options{})
	res, err := l.SendOutOfBandRequest(ctx, org, peOOB())
	if err != nil {
		t.Fatal(err)
	}
	env, _ := answer(t, w, res.InvitationURL)
	if status, body, _ := post(t, srv, http.MethodPost, "application/didcomm-envelope-enc", env); status != http.StatusAccepted {
		t.Fatalf("%d %s", status, body)
	}
	rec, err := l.AcceptPresentation(ctx, org, res.ProofRecord.ID)
	ack, _ := rec.Metadata["ack"].(map[string]any)
	if err != nil || rec.State != backend.StateDone || ack["sent"] != false || ack["error"] != "endpoint-not-public" {
		t.Fatalf("accept: %+v, %v", rec, err)
	}
	w.None() // the guard let nothing through
}

func TestDIDCommPath(t *testing.T) {
	tests := []struct{ public, endpoint, want string }{
		{"https://v.example.com", "https://v.example.com/didcomm", "/didcomm"},
		{"https://v.example.com/x", "https://V.EXAMPLE.COM/agent/in", "/agent/in"},
		{"https://v.example.com", "https://v.example.com", "/"},
		{"https://v.example.com", "https://agent.example.com/didcomm", ""},
		{"https://v.example.com", "https://v.example.com:8443/didcomm", ""},
		{"https://v.example.com", "wss://v.example.com/ws", ""},
	}
	for _, tt := range tests {
		l := Local{PublicURL: tt.public, DIDCommEndpoint: tt.endpoint}
		if got := l.DIDCommPath(); got != tt.want {
			t.Errorf("DIDCommPath(%s, %s) = %q, want %q", tt.public, tt.endpoint, got, tt.want)
		}
	}
}

func TestCaddyfileAllowPrivateEndpoints(t *testing.T) {
	var l Local
	if err := l.UnmarshalCaddyfile(caddyfile.NewTestDispenser("local {\n public_url https://v.example\n allow_private_endpoints\n}")); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(l); string(b) != `{"public_url":"https://v.example","allow_private_endpoints":true}` {
		t.Fatalf("JSON %s", b)
	}
	for _, in := range []string{"local {\n allow_private_endpoints yes\n}", "local {\n allow_private_endpoints\n allow_private_endpoints\n}"} {
		var l Local
		if err := l.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestDIDCommStatus(t *testing.T) {
	if DIDCommStatus(&backend.ConflictError{State: "done"}) != http.StatusBadRequest ||
		DIDCommStatus(backend.ErrUnavailable) != http.StatusServiceUnavailable ||
		DIDCommStatus(proofs.ErrBusy) != http.StatusServiceUnavailable ||
		DIDCommStatus(io.EOF) != http.StatusInternalServerError {
		t.Fatal("status mapping")
	}
}

// TestDIDCommBusy: a 503 (storage down, too many checks at once) says
// when to retry; other refusals do not.
func TestDIDCommBusy(t *testing.T) {
	for _, tt := range []struct {
		err        error
		status     int
		retryAfter string
	}{
		{proofs.ErrBusy, http.StatusServiceUnavailable, "2"},
		{backend.ErrUnavailable, http.StatusServiceUnavailable, "2"},
		{proofs.ErrMalformed, http.StatusBadRequest, ""},
	} {
		rec := httptest.NewRecorder()
		writeDIDCommError(rec, DIDCommStatus(tt.err))
		if rec.Code != tt.status || rec.Header().Get("Retry-After") != tt.retryAfter {
			t.Errorf("%v: %d, Retry-After %q", tt.err, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
}
