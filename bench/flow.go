package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/didcomm"
)

// peCreate is a presentation-exchange proof request without a short URL.
const peCreate = `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":{"id":"32f54163-7166-48f1-93d8-ff217bdb0653",
"input_descriptors":[{"id":"citizenship","name":"EU Driver's License","purpose":"We need your license",
"constraints":{"fields":[{"path":["$.credentialSubject.license"]}]}}]}}`

// flow is the full local accept: a proof request is created, a wallet
// answers it with a presentation over DIDComm (RFC 0019 authcrypt, as a
// real wallet sends it), and the caller accepts it. One iteration is three
// requests to proofgate; the wallet's packing runs in this process.
type flow struct {
	client *http.Client
	t      target
	priv   ed25519.PrivateKey
}

func newFlow(client *http.Client, t target) *flow {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	return &flow{client: client, t: t, priv: priv}
}

func (f *flow) run() error {
	hdr := map[string]string{"Content-Type": "application/json", "X-API-Key": benchKey}
	var body []byte
	if err := send(f.client, http.MethodPost, f.t.Base+"/orgs/"+orgLocal+"/proofs/oob?requestType=presentationExchange", hdr, peCreate, http.StatusCreated, &body); err != nil {
		return err
	}
	var created struct {
		Data struct {
			ProofRecordID string `json:"proofRecordId"`
			Invitation    struct {
				Services []struct {
					RecipientKeys []string `json:"recipientKeys"`
				} `json:"services"`
				Attach []attachment `json:"requests~attach"`
			} `json:"invitation"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		return err
	}
	inv := created.Data.Invitation
	if len(inv.Services) != 1 || len(inv.Services[0].RecipientKeys) != 1 || len(inv.Attach) != 1 {
		return errors.New("flow: unexpected invitation")
	}
	verkey, err := didcomm.Verkey(inv.Services[0].RecipientKeys[0])
	if err != nil {
		return err
	}
	var req struct {
		Thread struct {
			Thid  string `json:"thid"`
			Pthid string `json:"pthid"`
		} `json:"~thread"`
		Attach []attachment `json:"request_presentations~attach"`
	}
	if err := inv.Attach[0].decode(&req); err != nil || len(req.Attach) != 1 {
		return fmt.Errorf("flow: request-presentation: %v", err)
	}
	var pe struct {
		Options struct {
			Challenge string `json:"challenge"`
			Domain    string `json:"domain"`
		} `json:"options"`
		Definition struct {
			ID string `json:"id"`
		} `json:"presentation_definition"`
	}
	if err := req.Attach[0].decode(&pe); err != nil {
		return fmt.Errorf("flow: request attachment: %v", err)
	}

	presentation := map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1"},
		"type":     []any{"VerifiablePresentation"},
		"presentation_submission": map[string]any{
			"id": uuid.NewString(), "definition_id": pe.Definition.ID,
			"descriptor_map": []any{map[string]any{"id": "citizenship", "format": "ldp_vc", "path": "$.verifiableCredential[0]"}},
		},
		"verifiableCredential": []any{map[string]any{
			"@context":          []any{"https://www.w3.org/2018/credentials/v1"},
			"type":              []any{"VerifiableCredential"},
			"issuer":            "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
			"credentialSubject": map[string]any{"id": "did:example:holder", "license": "B"},
			"proof":             map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "assertionMethod"},
		}},
		"proof": map[string]any{"type": "Ed25519Signature2018", "proofPurpose": "authentication",
			"challenge": pe.Options.Challenge, "domain": pe.Options.Domain, "jws": "eyJhbGciOiJFZERTQSJ9..c2ln"},
	}
	msg, _ := json.Marshal(map[string]any{
		"@type":                "https://didcomm.org/present-proof/2.0/presentation",
		"@id":                  uuid.NewString(),
		"~thread":              map[string]any{"thid": req.Thread.Thid, "pthid": req.Thread.Pthid},
		"formats":              []any{map[string]any{"attach_id": "dif-0", "format": "dif/presentation-exchange/submission@v1.0"}},
		"presentations~attach": []any{map[string]any{"@id": "dif-0", "mime-type": "application/json", "data": map[string]any{"json": presentation}}},
	})
	env, err := didcomm.Pack(msg, []string{verkey}, f.priv)
	if err != nil {
		return err
	}
	if err := send(f.client, http.MethodPost, f.t.Base+"/didcomm", map[string]string{"Content-Type": "application/didcomm-envelope-enc"}, string(env), http.StatusAccepted, nil); err != nil {
		return err
	}
	return send(f.client, http.MethodPost, f.t.Base+"/proofs/"+created.Data.ProofRecordID+"/accept-presentation", map[string]string{"X-API-Key": benchKey}, "", http.StatusOK, nil)
}

// attachment is a DIDComm attachment with its data inline, as JSON or
// base64.
type attachment struct {
	Data struct {
		Base64 string          `json:"base64"`
		JSON   json.RawMessage `json:"json"`
	} `json:"data"`
}

func (a attachment) decode(v any) error {
	if a.Data.Base64 != "" {
		raw, err := base64.StdEncoding.DecodeString(a.Data.Base64)
		if err != nil {
			raw, err = base64.RawURLEncoding.DecodeString(a.Data.Base64)
		}
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, v)
	}
	return json.Unmarshal(a.Data.JSON, v)
}
