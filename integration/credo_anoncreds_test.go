package integration

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/credo"
)

// TestLocalVerifierWithCredoAnonCredsHolder drives the local backend's
// AnonCreds verification with a real Credo holder (@credo-ts 0.5 with
// @credo-ts/anoncreds and anoncreds-rs): the holder is issued a real CL
// credential by an issuer in its own wallet (legacy unqualified Indy
// identifiers, an in-memory registry, no ledger), whose schema and
// credential definition the test writes into proofgate's files registry.
// It takes the invitation of proofgate's indy request (a revealed
// attribute and an age >= 18 predicate, both restricted to the credential
// definition) and answers it on its own (auto-accept) with a CL proof in
// hlindy/proof@v2.0 over present-proof 2.0; proofgate verifies it
// cryptographically, the record reaches presentation-received with
// isVerified true, accept gives done and the ack ends the holder's record
// done. A predicate the credential does not satisfy (age >= 40) is
// refused by Credo itself: it cannot make the proof, so nothing reaches
// proofgate. A proof of a credential whose credential definition proofgate
// resolves with other public keys is refused by proofgate (abandoned,
// reason signature, a problem report to the holder). Skips with one line
// when the holder is not installed (scripts/credo-holder.sh).
func TestLocalVerifierWithCredoAnonCredsHolder(t *testing.T) {
	h := credo.StartAnonCreds(t)
	began := time.Now()
	cred := h.IssueAnonCreds(t, map[string]string{"name": "Alice", "age": "30"})
	t.Logf("issued in %v: schema %s, credential definition %s", time.Since(began).Round(time.Millisecond), cred.SchemaID, cred.CredentialDefinitionID)
	// A second credential, whose credential definition proofgate is given
	// with the first one's public keys: its proofs must not verify.
	other := h.IssueAnonCreds(t, map[string]string{"name": "Bob", "age": "30"})
	var good, swapped map[string]json.RawMessage
	if err := json.Unmarshal(cred.CredentialDefinition, &good); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(other.CredentialDefinition, &swapped); err != nil {
		t.Fatal(err)
	}
	swapped["value"] = good["value"]

	// proofgate resolves the legacy identifiers the presentation names
	// from a files source: a bundle of the documents the holder's
	// registry holds.
	registry := t.TempDir()
	bundle, err := json.Marshal(map[string]any{
		"schemas": map[string]json.RawMessage{cred.SchemaID: cred.Schema, other.SchemaID: other.Schema},
		"credentialDefinitions": map[string]any{
			cred.CredentialDefinitionID:  cred.CredentialDefinition,
			other.CredentialDefinitionID: swapped,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(registry, "credo.json"), bundle, 0o600); err != nil {
		t.Fatal(err)
	}

	tester := newTester(t)
	tester.InitServer(globalOptions(t.TempDir())+`
`+base+` {
	proofgate {
		backend local local {
			public_url `+base+`
			allow_private_endpoints
			anoncreds_registry {
				files `+registry+`
			}
		}
		auth {
			api_key `+keyA+` org `+orgA+`
		}
	}
}
`, "caddyfile")
	settle(t)
	unloadAtEnd(t)

	create := func(t *testing.T, credDefID string, minAge int) (id, thid, invURL string) {
		t.Helper()
		restricted := []map[string]any{{"cred_def_id": credDefID}}
		body, _ := json.Marshal(map[string]any{"isShortenUrl": false, "comment": "who are you, and are you old enough", "proofFormats": map[string]any{"indy": map[string]any{
			"name": "credo-anoncreds", "version": "1.0",
			"requested_attributes": map[string]any{"given": map[string]any{"name": "name", "restrictions": restricted}},
			"requested_predicates": map[string]any{"adult": map[string]any{"name": "age", "p_type": ">=", "p_value": minAge, "restrictions": restricted}},
		}}})
		r := postJSON(t, oobPath(orgA, "indy"), keyA, string(body))
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		data := r.json(t)["data"].(map[string]any)
		return data["proofRecordId"].(string), data["proofRecordThId"].(string), data["invitationUrl"].(string)
	}

	t.Run("revealed attribute and predicate", func(t *testing.T) {
		id, thid, invURL := create(t, cred.CredentialDefinitionID, 18)
		hr := presentedAndAccepted(t, h, id, thid, invURL, cred.CredentialDefinitionID)

		// What Credo sent, as it stored it: the legacy indy proof.
		d := h.Proof(t, hr.ID)
		var pres struct {
			Indy struct {
				Proof struct {
					Proofs []struct {
						PrimaryProof struct {
							GEProofs []struct {
								Predicate struct {
									AttrName string `json:"attr_name"`
									PType    string `json:"p_type"`
									Value    int    `json:"value"`
								} `json:"predicate"`
							} `json:"ge_proofs"`
						} `json:"primary_proof"`
						NonRevocProof any `json:"non_revoc_proof"`
					} `json:"proofs"`
				} `json:"proof"`
				RequestedProof struct {
					RevealedAttrs map[string]struct {
						SubProofIndex int    `json:"sub_proof_index"`
						Raw           string `json:"raw"`
						Encoded       string `json:"encoded"`
					} `json:"revealed_attrs"`
					Predicates map[string]struct {
						SubProofIndex int `json:"sub_proof_index"`
					} `json:"predicates"`
				} `json:"requested_proof"`
				Identifiers []struct {
					SchemaID  string `json:"schema_id"`
					CredDefID string `json:"cred_def_id"`
					RevRegID  any    `json:"rev_reg_id"`
					Timestamp any    `json:"timestamp"`
				} `json:"identifiers"`
			} `json:"indy"`
		}
		if err := json.Unmarshal(d.FormatData.Presentation, &pres); err != nil {
			t.Fatalf("the holder's presentation: %v\n%s", err, d.FormatData.Presentation)
		}
		p := pres.Indy
		if len(p.Proof.Proofs) != 1 || len(p.Identifiers) != 1 || p.Identifiers[0].CredDefID != cred.CredentialDefinitionID ||
			p.Identifiers[0].SchemaID != cred.SchemaID || p.RequestedProof.RevealedAttrs["given"].Raw != "Alice" ||
			len(p.Proof.Proofs[0].PrimaryProof.GEProofs) != 1 || p.Proof.Proofs[0].PrimaryProof.GEProofs[0].Predicate.AttrName != "age" {
			t.Fatalf("the holder's presentation: %s", d.FormatData.Presentation)
		}
		ge := p.Proof.Proofs[0].PrimaryProof.GEProofs[0].Predicate
		t.Logf("Credo's hlindy proof: identifiers %+v, revealed %+v, predicate %s %s %d, non_revoc_proof %v; request as Credo stored it %s",
			p.Identifiers, p.RequestedProof.RevealedAttrs, ge.AttrName, ge.PType, ge.Value, p.Proof.Proofs[0].NonRevocProof, d.FormatData.Request)
	})

	t.Run("predicate the credential does not satisfy", func(t *testing.T) {
		id, thid, invURL := create(t, cred.CredentialDefinitionID, 40)
		h.ReceiveInvitation(t, invURL)
		// Credo selects the credential (age 30) all the same, anoncreds-rs
		// refuses to prove age >= 40, and the auto-accept fails: Credo
		// logs the error, sends neither a presentation nor a problem
		// report, and its record stays request-received.
		const refusal = "Predicate is not satisfied"
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(h.Logs(), refusal) {
			if time.Now().After(deadline) {
				t.Fatalf("the holder did not log %q after 30s", refusal)
			}
			time.Sleep(100 * time.Millisecond)
		}
		hr := h.WaitProof(t, thid, 5*time.Second, "request-received")
		g := getRecord(t, id, keyA)
		if g.status != http.StatusOK {
			t.Fatalf("GET /proofs/%s: %d %s", id, g.status, g.body)
		}
		if rec := g.json(t); rec["state"] != "request-sent" || rec["isVerified"] != nil {
			t.Fatalf("proofgate's record %s", g.body)
		}
		t.Logf("Credo: %q; its record %s, proofgate's request-sent", refusal, hr.State)
	})

	t.Run("credential definition with other keys", func(t *testing.T) {
		id, thid, invURL := create(t, other.CredentialDefinitionID, 18)
		h.ReceiveInvitation(t, invURL)
		rec := waitProofgateRecord(t, id, 30*time.Second)
		raw, _ := json.Marshal(rec)
		verification, _ := rec["metadata"].(map[string]any)["verification"].(map[string]any)
		msg, _ := rec["errorMessage"].(string)
		if rec["state"] != "abandoned" || rec["isVerified"] != false || verification["verified"] != false ||
			verification["reason"] != "signature" || !strings.Contains(msg, "signature") {
			t.Fatalf("proofgate's record after a proof against other keys: %s", raw)
		}
		// proofgate's problem report (thid, pthid the invitation's id)
		// reaches the holder. Credo 0.5.19 does not apply it: its
		// processProblemReport looks for an out-of-band record of its own
		// as the invitation's sender, and a connectionless prover has none
		// ("No out of band record found for credential request message
		// … role sender"), so its record stays presentation-sent; a Credo
		// that handles it abandons the record.
		const report = "the presentation failed verification: signature"
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(h.Logs(), report) {
			if time.Now().After(deadline) {
				t.Fatalf("the holder did not log proofgate's problem report %q after 30s", report)
			}
			time.Sleep(100 * time.Millisecond)
		}
		hr := h.WaitProof(t, thid, 5*time.Second, "abandoned", "presentation-sent")
		t.Logf("proofgate: %q; the holder got the problem report, its record %s (%q)", msg, hr.State, hr.ErrorMessage)
	})
}
