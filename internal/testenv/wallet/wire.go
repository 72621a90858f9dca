package wallet

// Wire constants, spelled out here rather than imported from the verifier:
// a double that shared them would agree with any mistake in them.
const (
	TypePresentationV2  = "https://didcomm.org/present-proof/2.0/presentation"
	TypePresentationV1  = "https://didcomm.org/present-proof/1.0/presentation"
	TypeProblemReportV2 = "https://didcomm.org/present-proof/2.0/problem-report"
	TypeProblemReportV1 = "https://didcomm.org/present-proof/1.0/problem-report"
	TypeAckV2           = "https://didcomm.org/present-proof/2.0/ack"
	TypeAckV1           = "https://didcomm.org/present-proof/1.0/ack"
	TypeRequestV1       = "https://didcomm.org/present-proof/1.0/request-presentation"
	TypeRequestV2       = "https://didcomm.org/present-proof/2.0/request-presentation"

	// Attachment formats (RFC 0454 registry).
	FormatIndyRequest   = "hlindy/proof-req@v2.0"
	FormatIndyProof     = "hlindy/proof@v2.0"
	FormatAnonCredsReq  = "anoncreds/proof-request@v1.0"
	FormatAnonCredsPres = "anoncreds/proof@v1.0"
	FormatDIFRequest    = "dif/presentation-exchange/definitions@v1.0"
	FormatDIFSubmission = "dif/presentation-exchange/submission@v1.0"

	// AttachIDPresentationV1 is the present-proof 1.0 attachment id Credo
	// and ACA-Py write.
	AttachIDPresentationV1 = "libindy-presentation-0"

	// MediaTypeEnvelope is the RFC 0044 media type of an RFC 0019 envelope.
	MediaTypeEnvelope = "application/didcomm-envelope-enc"

	// ProblemCodeAbandoned is the code a prover uses when it gives up.
	ProblemCodeAbandoned = "abandoned"
)
