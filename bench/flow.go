package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// peCreate is a presentation-exchange proof request without a short URL.
const peCreate = `{"isShortenUrl":false,"proofFormats":{},"presentationDefinition":{"id":"32f54163-7166-48f1-93d8-ff217bdb0653",
"input_descriptors":[{"id":"citizenship","name":"EU Driver's License","purpose":"We need your license",
"constraints":{"fields":[{"path":["$.credentialSubject.license"]}]}}]}}`

// flow is the full local accept: a proof request is created, a wallet
// answers it over DIDComm (RFC 0019 authcrypt) with a presentation it
// signed (a self-issued credential, Ed25519Signature2018 with the
// verifier's challenge), the verifier checks it, and the caller accepts
// it. One iteration is three requests to proofgate; the wallet (the
// project's test wallet, without an endpoint of its own, so no ack is
// sent) runs in this process.
type flow struct {
	client *http.Client
	t      target
	w      *wallet.Wallet
}

func newFlow(client *http.Client, t target) *flow {
	w, err := wallet.New(wallet.Options{NoEndpoint: true})
	if err != nil {
		panic(err) // only a failing random source
	}
	return &flow{client: client, t: t, w: w}
}

func (f *flow) run() error {
	ctx := context.Background()
	hdr := map[string]string{"Content-Type": "application/json", "X-API-Key": benchKey}
	var body []byte
	if err := send(f.client, http.MethodPost, f.t.Base+"/orgs/"+orgLocal+"/proofs/oob?requestType=presentationExchange", hdr, peCreate, http.StatusCreated, &body); err != nil {
		return err
	}
	var created struct {
		Data struct {
			ProofRecordID string          `json:"proofRecordId"`
			Invitation    json.RawMessage `json:"invitation"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		return err
	}
	inv, err := wallet.ParseInvitationJSON(created.Data.Invitation)
	if err != nil {
		return err
	}
	h := f.w.Holder()
	cred, err := h.Issue(ctx, wallet.CredentialOptions{Subject: map[string]any{"license": "B"}})
	if err != nil {
		return err
	}
	vp, err := h.SignedVP(ctx, inv, wallet.PresentationOptions{}, wallet.Submitted{DescriptorID: "citizenship", Credential: cred})
	if err != nil {
		return err
	}
	if err := f.w.Present(ctx, f.client, inv, vp, false); err != nil {
		return err
	}
	return send(f.client, http.MethodPost, f.t.Base+"/proofs/"+created.Data.ProofRecordID+"/accept-presentation", map[string]string{"X-API-Key": benchKey}, "", http.StatusOK, nil)
}
