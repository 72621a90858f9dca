package openapitest

// LDPPresentation is a JSON-LD presentation such as a Credo 0.5.19 holder
// sends (Present; its shape as TestRealCredoFormData saw it): one credential of subject, submitted for input
// descriptor descriptorID of definition definitionID, the presentation's
// proof carrying challenge. Its signatures are placeholders: the fake
// agent, like the backend's own check of the structure, does not verify
// them (Credo does).
func LDPPresentation(definitionID, descriptorID, challenge string, subject map[string]any) map[string]any {
	const holderKey = "did:key:z6MkjRagNiMu91DduvCvgEsqLZDVzrJzFrwahc4tXLt9DoHd"
	const issuerKey = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
	const jws = "eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..c2ln"
	return map[string]any{
		"@context": []any{"https://www.w3.org/2018/credentials/v1", "https://identity.foundation/presentation-exchange/submission/v1"},
		"type":     []any{"VerifiablePresentation", "PresentationSubmission"},
		"holder":   holderKey,
		"presentation_submission": map[string]any{
			"id": "c2b9e1e4-0d55-4d1c-9c3f-6c1d5a0f2b11", "definition_id": definitionID,
			"descriptor_map": []any{map[string]any{"id": descriptorID, "format": "ldp_vc", "path": "$.verifiableCredential[0]"}},
		},
		"verifiableCredential": []any{map[string]any{
			"@context":          []any{"https://www.w3.org/2018/credentials/v1"},
			"type":              []any{"VerifiableCredential"},
			"issuer":            issuerKey,
			"issuanceDate":      "2024-01-01T00:00:00Z",
			"credentialSubject": subject,
			"proof": map[string]any{
				"type": "Ed25519Signature2018", "created": "2024-01-01T00:00:00Z", "proofPurpose": "assertionMethod",
				"verificationMethod": issuerKey + "#" + issuerKey[len("did:key:"):], "jws": jws,
			},
		}},
		"proof": map[string]any{
			"type": "Ed25519Signature2018", "created": "2024-01-02T00:00:00Z", "proofPurpose": "authentication",
			"verificationMethod": holderKey + "#" + holderKey[len("did:key:"):], "challenge": challenge, "jws": jws,
		},
	}
}
