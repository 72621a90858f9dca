package acapy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/mr-tron/base58"
)

// maxBody caps what the harness reads of one admin API response.
const maxBody = 4 << 20

// Do sends one admin API request and returns the status and body. path is
// relative to AdminURL ("/present-proof-2.0/records"). body is sent as JSON
// unless nil; a []byte or json.RawMessage is sent as is. The API key goes in
// X-API-Key, and token, if not empty, in "Authorization: Bearer".
func (a *Agent) Do(ctx context.Context, method, path, token string, body any) (int, []byte, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case json.RawMessage:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.AdminURL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if a.APIKey != "" {
		req.Header.Set("X-API-Key", a.APIKey)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.Client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if len(out) > maxBody {
		return resp.StatusCode, nil, fmt.Errorf("%s %s: response larger than %d bytes", method, path, maxBody)
	}
	return resp.StatusCode, out, nil
}

// Call is Do for tests: a transport error fails t.
func (a *Agent) Call(t testing.TB, method, path, token string, body any) (int, []byte) {
	t.Helper()
	status, out, err := a.Do(context.Background(), method, path, token, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, out
}

// Wallet is a sub-wallet of a multitenant agent.
type Wallet struct {
	// ID is the wallet_id ACA-Py assigned.
	ID string
	// Token is the wallet's JWT, sent as "Authorization: Bearer <Token>".
	// ACA-Py 0.12 keeps one valid token per managed wallet: issuing a new one
	// (POST /multitenancy/wallet/{id}/token) makes this one answer
	// 401 "Token not valid.".
	Token string
}

// CreateWallet creates a sub-wallet with POST /multitenancy/wallet (the agent
// must have been started with Multitenant) and returns its id and token.
func (a *Agent) CreateWallet(t testing.TB, label string) Wallet {
	t.Helper()
	if !a.Multitenant {
		t.Fatal("acapy: CreateWallet needs an agent started with acapy.Multitenant()")
	}
	req := map[string]any{"label": label, "wallet_name": label + "-" + randomHex(4)}
	if a.WalletType == "askar" { // ACA-Py wants sub-wallets of the base wallet's type
		req["wallet_type"] = "askar"
		req["wallet_key"] = base58.Encode(randomBytes(32))
		req["wallet_key_derivation"] = "RAW"
	}
	status, body := a.Call(t, http.MethodPost, "/multitenancy/wallet", "", req)
	if status != http.StatusOK {
		t.Fatalf("POST /multitenancy/wallet: status %d: %s", status, body)
	}
	var w struct {
		WalletID string `json:"wallet_id"`
		Token    string `json:"token"`
	}
	if err := json.Unmarshal(body, &w); err != nil || w.WalletID == "" || w.Token == "" {
		t.Fatalf("POST /multitenancy/wallet: unexpected answer %s (%v)", body, err)
	}
	return Wallet{ID: w.WalletID, Token: w.Token}
}
