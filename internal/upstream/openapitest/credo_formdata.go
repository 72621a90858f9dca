package openapitest

import (
	"crypto/rand"
	"math/big"
)

// The fake credo-controller's format data (GET /didcomm/proofs/{id}/form-data):
// what the holder presented and what the request asked, as Credo keeps
// them (the shape TestRealCredoFormData holds to a real Credo verifier's).

// Present makes the holder's presentation arrive for record id: the
// record moves to presentation-received, isVerified true (as Credo's
// verifier sets it), and form-data gives presentation under the
// request's format key. A JWT VP is a JSON string. A request whose
// invitation's out-of-band record was deleted takes no presentation (a
// real Credo verifier refuses it, TestRealCredoDiscardedInvitation): its
// record stays as it was, and Present reports false.
func (c *Credo) Present(tenant, id string, presentation any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := c.records[tenant][id]
	if rec == nil {
		return false
	}
	if oob, ok := c.oobOf[id]; ok && c.oobs[tenant][oob] == nil {
		return false
	}
	rec["state"], rec["isVerified"] = "presentation-received", true
	c.presented[id] = true
	fd := c.formData[id]
	if fd == nil {
		fd = map[string]any{"request": map[string]any{}}
		c.formData[id] = fd
	}
	pres := map[string]any{}
	for key := range fd["request"].(map[string]any) {
		pres[key] = presentation
	}
	fd["presentation"] = pres
	return true
}

// Challenge returns the challenge of record id's presentation-exchange
// request ("" for another request).
func (c *Credo) Challenge(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	req, _ := c.formData[id]["request"].(map[string]any)
	pe, _ := req["presentationExchange"].(map[string]any)
	opts, _ := pe["options"].(map[string]any)
	ch, _ := opts["challenge"].(string)
	return ch
}

// askarNonce is a challenge as Credo's Askar wallet makes one
// (generateNonce): 80 random bits in decimal, e.g.
// "183504975671534827234557".
func askarNonce() string {
	b := make([]byte, 10)
	rand.Read(b)
	return new(big.Int).SetBytes(b).String()
}

// requestFormData is the request's format data Credo keeps for a
// create-request-oob body.
func requestFormData(body map[string]any) map[string]any {
	formats, _ := body["proofFormats"].(map[string]any)
	if pe, ok := formats["presentationExchange"].(map[string]any); ok {
		return map[string]any{"presentationExchange": map[string]any{
			"presentation_definition": pe["presentationDefinition"],
			"options":                 map[string]any{"challenge": askarNonce()},
		}}
	}
	if indy, ok := formats["indy"].(map[string]any); ok {
		req := map[string]any{"nonce": "1234567890"}
		for k, v := range indy {
			req[k] = v
		}
		return map[string]any{"indy": req}
	}
	return map[string]any{}
}
