package integration

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/credo"
)

// TestLocalVerifierWithCredoHolder drives the local backend with a real
// Credo holder (@credo-ts 0.5 on node, the framework of Bifold wallets):
// the holder signs itself a did:key Ed25519Signature2018 credential, takes
// the invitation URL of a presentation-exchange request (short and long),
// answers it on its own (auto-accept) with an ldp_vp over present-proof
// 2.0; proofgate verifies it, the record reaches presentation-received
// with isVerified true, accept gives done, and the ack ends the holder's
// record done. Skips with one line when the holder is not installed
// (scripts/credo-holder.sh).
func TestLocalVerifierWithCredoHolder(t *testing.T) {
	h := credo.Start(t)
	cred := h.IssueSelf(t, map[string]any{"givenName": "Alice"})
	// A P-256 issuer of its own, for the ES256 case: trusted from the
	// start. Its one claim no other case asks for (see the JWT cases).
	p256 := h.IssueSelfJWT(t, "ES256", map[string]any{"nickname": "Al"})

	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
			allow_private_endpoints
			trusted_issuers `+cred.IssuerDID+` `+p256.IssuerDID+`
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)
	unloadAtEnd(t)

	const descriptor = "test_credential"
	for _, tc := range []struct {
		name, defID string
		shorten     bool
		// schema is the input descriptor's schema (a PE v1 definition), or
		// "" for none (v2). Credo (Sphereon PEX) matches a v1 schema URI
		// literally against the credential's @context, credentialSchema
		// and type, unlike ACA-Py, which wants the expanded type IRI.
		schema string
		// format is the definition's format, or "" for none.
		format string
		// jwtAlg: the holder presents a VC-JWT of this alg, as a jwt_vp
		// ("" for JSON-LD); the field's paths then reach its claims
		// through the vc claim too (DIF PE reads a JWT credential's
		// decoded payload). claim is the field asked for.
		jwtAlg, claim string
	}{
		{"short URL, no schema", "credo-short-v2", true, "", "", "", "givenName"},
		{"long URL, context as schema", "credo-long-v1", false, "https://www.w3.org/2018/credentials/v1", "", "", "givenName"},
		// As definitions for Credo are written (it reads ldp_vc): the
		// local verifier holds the answer to it.
		{"format named", "credo-format", true, "", `"format":{"ldp_vc":{"proof_type":["Ed25519Signature2018"]}},`, "", "givenName"},
		// Credo writes a jwt_vp's descriptor path relative to its vp claim
		// ($.verifiableCredential[0]). Each JWT case asks for a claim only
		// its credential has: Credo 0.5.19's holder does not choose by the
		// definition's format (asked for jwt_vc, it presented its JSON-LD
		// credential, which the local verifier refused for its format).
		{"JWT credential, jwt_vp", "credo-jwt", true, "", `"format":{"jwt_vc":{"alg":["EdDSA"]},"jwt_vp":{"alg":["EdDSA"]}},`, "EdDSA", "familyName"},
		{"ES256 JWT credential (P-256 did:keys), jwt_vp", "credo-jwt-es256", true, "", `"format":{"jwt_vc":{"alg":["ES256"]},"jwt_vp":{"alg":["ES256"]}},`, "ES256", "nickname"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := ""
			if tc.schema != "" {
				schema = `"schema":[{"uri":"` + tc.schema + `"}],`
			}
			paths := `["$.credentialSubject.` + tc.claim + `"]`
			issuer := cred.IssuerDID
			switch tc.jwtAlg {
			case "EdDSA":
				h.IssueSelfJWT(t, "EdDSA", map[string]any{tc.claim: "Liddell"})
			case "ES256":
				issuer = p256.IssuerDID
			}
			if tc.jwtAlg != "" {
				paths = `["$.credentialSubject.` + tc.claim + `","$.vc.credentialSubject.` + tc.claim + `"]`
			}
			shorten := map[bool]string{true: "true", false: "false"}[tc.shorten]
			body := `{"isShortenUrl":` + shorten + `,"comment":"show your test credential","proofFormats":{},
				"presentationDefinition":{"id":"` + tc.defID + `",` + tc.format + `
				"input_descriptors":[{"id":"` + descriptor + `","name":"Test credential",` + schema + `
				"constraints":{"fields":[{"path":` + paths + `}]}}]}}`
			r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, body)
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			data := r.json(t)["data"].(map[string]any)
			id, thid, invURL := data["proofRecordId"].(string), data["proofRecordThId"].(string), data["invitationUrl"].(string)
			if tc.shorten == strings.Contains(invURL, "?oob=") {
				t.Fatalf("invitationUrl %s (isShortenUrl %v)", invURL, tc.shorten)
			}

			hr := presentedAndAccepted(t, h, id, thid, invURL, issuer)
			d := h.Proof(t, hr.ID)
			if tc.jwtAlg != "" {
				checkCredoJWTPresentation(t, d.FormatData.Presentation, tc.jwtAlg, tc.defID, descriptor)
				return
			}
			var pres struct {
				Pex struct {
					Context []any `json:"@context"`
					Proof   struct {
						Type      string `json:"type"`
						Challenge string `json:"challenge"`
						Domain    string `json:"domain"`
					} `json:"proof"`
					Submission struct {
						DefinitionID  string `json:"definition_id"`
						DescriptorMap []struct {
							ID     string `json:"id"`
							Format string `json:"format"`
						} `json:"descriptor_map"`
					} `json:"presentation_submission"`
				} `json:"presentationExchange"`
			}
			if err := json.Unmarshal(d.FormatData.Presentation, &pres); err != nil {
				t.Fatalf("the holder's presentation: %v\n%s", err, d.FormatData.Presentation)
			}
			p := pres.Pex
			if p.Proof.Type != "Ed25519Signature2018" || p.Proof.Challenge == "" || p.Submission.DefinitionID != tc.defID ||
				len(p.Submission.DescriptorMap) != 1 || p.Submission.DescriptorMap[0].ID != descriptor {
				t.Fatalf("the holder's presentation: %s", d.FormatData.Presentation)
			}
			t.Logf("Credo's ldp_vp: @context %v, proof domain %q, descriptor format %q",
				p.Context, p.Proof.Domain, p.Submission.DescriptorMap[0].Format)
		})
	}
}

// checkCredoJWTPresentation checks that the holder's presentation (its
// format data) was a jwt_vp answering definition defID's descriptor with
// a JWT credential, bound to a challenge (nonce).
func checkCredoJWTPresentation(t *testing.T, formatData json.RawMessage, alg, defID, descriptor string) {
	t.Helper()
	var pres struct {
		Pex string `json:"presentationExchange"`
	}
	if err := json.Unmarshal(formatData, &pres); err != nil || strings.Count(pres.Pex, ".") != 2 {
		t.Fatalf("the holder's presentation is not a compact JWT: %v\n%s", err, formatData)
	}
	parts := strings.Split(pres.Pex, ".")
	var header struct {
		Alg string `json:"alg"`
	}
	if raw, err := base64.RawURLEncoding.DecodeString(parts[0]); err != nil || json.Unmarshal(raw, &header) != nil || header.Alg != alg {
		t.Fatalf("the holder's JWT VP header: %s (%v), want alg %s", raw, err, alg)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("the holder's JWT VP payload: %v", err)
	}
	var vp struct {
		Nonce string `json:"nonce"`
		VP    struct {
			VerifiableCredential []string `json:"verifiableCredential"`
			Submission           struct {
				DefinitionID  string `json:"definition_id"`
				DescriptorMap []struct {
					ID, Format, Path string
				} `json:"descriptor_map"`
			} `json:"presentation_submission"`
		} `json:"vp"`
	}
	if err := json.Unmarshal(payload, &vp); err != nil {
		t.Fatalf("the holder's JWT VP payload: %v\n%s", err, payload)
	}
	m := vp.VP.Submission.DescriptorMap
	if vp.Nonce == "" || len(vp.VP.VerifiableCredential) != 1 || vp.VP.Submission.DefinitionID != defID ||
		len(m) != 1 || m[0].ID != descriptor || m[0].Format != "jwt_vc" {
		t.Fatalf("the holder's JWT VP payload: %s", payload)
	}
	t.Logf("Credo's jwt_vp: descriptor path %q, format %q", m[0].Path, m[0].Format)
}

// presentedAndAccepted hands invURL to the Credo holder h, checks that
// proofgate's record id (thread thid) is then presentation-received and
// verified, its verification metadata naming mustShow (the credential's
// issuer or definition), and accepts it: done. It returns the holder's
// record once proofgate's ack has ended it done.
func presentedAndAccepted(t *testing.T, h *credo.Holder, id, thid, invURL, mustShow string) credo.ProofRecord {
	t.Helper()
	began := time.Now()
	h.ReceiveInvitation(t, invURL)
	rec := waitProofgateRecord(t, id, 30*time.Second)
	raw, _ := json.Marshal(rec)
	if rec["state"] != "presentation-received" || rec["isVerified"] != true || rec["threadId"] != thid {
		t.Fatalf("proofgate's record after Credo's presentation: %s", raw)
	}
	meta, _ := json.Marshal(rec["metadata"])
	if !strings.Contains(string(meta), `"verified":true`) || !strings.Contains(string(meta), mustShow) {
		t.Fatalf("metadata.verification does not show the credential checked: %s", meta)
	}
	t.Logf("presentation-received, verified, %v after the invitation; metadata %s", time.Since(began).Round(time.Millisecond), meta)

	a := postJSON(t, acceptPath(id), keyA, "")
	if a.status != http.StatusOK {
		t.Fatalf("accept: %d %s", a.status, a.body)
	}
	if got := a.json(t); got["state"] != "done" || got["isVerified"] != true {
		t.Fatalf("accepted record %s", a.body)
	}
	if g := getRecord(t, id, keyA); g.status != http.StatusOK || g.json(t)["state"] != "done" {
		t.Fatalf("GET /proofs/%s after accept: %d %s", id, g.status, g.body)
	}
	// proofgate's ack reaches the holder's endpoint (loopback:
	// allow_private_endpoints) and ends its record done.
	hr := h.WaitProof(t, thid, 30*time.Second, "done")
	if hr.ProtocolVersion != "v2" {
		t.Errorf("holder's record protocol %q, want v2", hr.ProtocolVersion)
	}
	return hr
}

// waitProofgateRecord polls GET /proofs/{id} until the record leaves
// request-sent, and returns it.
func waitProofgateRecord(t *testing.T, id string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		g := getRecord(t, id, keyA)
		if g.status != http.StatusOK {
			t.Fatalf("GET /proofs/%s: %d %s", id, g.status, g.body)
		}
		rec := g.json(t)
		if rec["state"] != "request-sent" {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("proofgate's record %s still request-sent after %v", id, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
