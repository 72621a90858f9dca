package wallet

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/didcomm"
)

// PresentOptions shape a presentation message.
type PresentOptions struct {
	// Service is the ~service decorator; the wallet's own (base58 keys)
	// when nil, none when NoService.
	Service   map[string]any
	NoService bool
	// Format overrides the 2.0 attachment format (FormatAnonCredsPres for
	// an AnonCreds 1.0 answer to an indy request, say).
	Format string
	// ID is the message's @id; a fresh UUID when empty.
	ID string
}

// Presentation builds the present-proof presentation message answering
// inv with payload (any JSON value, or raw JSON bytes) as its format
// attachment, on the invitation's thread. It encodes attachments as Credo
// and ACA-Py do: 1.0 base64 with id libindy-presentation-0; 2.0 DIF as
// data.json, 2.0 indy as data.base64 (URL alphabet).
func (w *Wallet) Presentation(inv *Invitation, payload any, opts PresentOptions) (map[string]any, error) {
	b, err := rawJSON(payload)
	if err != nil {
		return nil, err
	}
	id := opts.ID
	if id == "" {
		id = uuid.NewString()
	}
	msg := map[string]any{
		"@id":     id,
		"~thread": map[string]any{"thid": inv.ThreadID, "pthid": inv.ParentThreadID},
		"comment": "here you are",
	}
	switch {
	case opts.NoService:
	case opts.Service != nil:
		msg["~service"] = opts.Service
	case w.URL() != "":
		msg["~service"] = w.Service(false)
	}
	if inv.V1 {
		msg["@type"] = TypePresentationV1
		msg["presentations~attach"] = []any{map[string]any{"@id": AttachIDPresentationV1, "mime-type": "application/json", "data": map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}}}
		return msg, nil
	}
	msg["@type"] = TypePresentationV2
	if inv.IsDIF() {
		format := FormatDIFSubmission
		if opts.Format != "" {
			format = opts.Format
		}
		msg["formats"] = []any{map[string]any{"attach_id": "dif-0", "format": format}}
		msg["presentations~attach"] = []any{map[string]any{"@id": "dif-0", "mime-type": "application/json", "data": map[string]any{"json": json.RawMessage(b)}}}
		return msg, nil
	}
	format := FormatIndyProof
	if opts.Format != "" {
		format = opts.Format
	} else if inv.Format == FormatAnonCredsReq {
		format = FormatAnonCredsPres
	}
	msg["formats"] = []any{map[string]any{"attach_id": "indy-0", "format": format}}
	msg["presentations~attach"] = []any{map[string]any{"@id": "indy-0", "mime-type": "application/json", "data": map[string]any{"base64": base64.URLEncoding.EncodeToString(b)}}}
	return msg, nil
}

// ProblemReport builds a problem report on the invitation's thread:
// present-proof 2.0 (1.0 for a 1.0 request) unless typ names another
// (notification/1.0/problem-report, a legacy did:sov type). A nil
// description leaves it out.
func ProblemReport(inv *Invitation, typ string, description any) map[string]any {
	if typ == "" {
		typ = TypeProblemReportV2
		if inv.V1 {
			typ = TypeProblemReportV1
		}
	}
	msg := map[string]any{"@type": typ, "@id": uuid.NewString(), "~thread": map[string]any{"thid": inv.ThreadID, "pthid": inv.ParentThreadID}}
	if description != nil {
		msg["description"] = description
	}
	return msg
}

func rawJSON(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case json.RawMessage:
		return x, nil
	}
	return json.Marshal(v)
}

// Pack packs msg (a JSON value or raw JSON) to the invitation's verifier
// key: authcrypt from the wallet's key, or anoncrypt.
func (w *Wallet) Pack(inv *Invitation, msg any, anon bool) ([]byte, error) {
	return w.PackTo(inv.VerifierKey, msg, anon)
}

// PackTo packs msg to any base58 verkey.
func (w *Wallet) PackTo(verkey string, msg any, anon bool) ([]byte, error) {
	b, err := rawJSON(msg)
	if err != nil {
		return nil, err
	}
	sender := w.priv
	if anon {
		sender = nil
	}
	return didcomm.Pack(b, []string{verkey}, sender)
}

// Post POSTs an envelope to endpoint as application/didcomm-envelope-enc
// and returns the HTTP status and (at most 64 KiB of) the body. client may
// be nil (http.DefaultClient).
func Post(ctx context.Context, client *http.Client, endpoint string, envelope []byte) (int, []byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(envelope))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", MediaTypeEnvelope)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, body, err
}

// Present builds, packs and posts the presentation of payload to the
// invitation's endpoint. A status other than 202 is an error.
func (w *Wallet) Present(ctx context.Context, client *http.Client, inv *Invitation, payload any, anon bool) error {
	msg, err := w.Presentation(inv, payload, PresentOptions{})
	if err != nil {
		return err
	}
	env, err := w.Pack(inv, msg, anon)
	if err != nil {
		return err
	}
	status, body, err := Post(ctx, client, inv.Endpoint, env)
	if err != nil {
		return fmt.Errorf("posting the presentation: %w", err)
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("the verifier answered HTTP %d: %s", status, bytes.TrimSpace(body))
	}
	return nil
}
