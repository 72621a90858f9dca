package proofs

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/backend"
)

// DIDComm message types and attachment formats (RFC 0434, 0454, 0037,
// 0592, 0510, 0015). Field order in the structs below is the order the
// RFC examples use, so the JSON reads like Credo's and ACA-Py's.
const (
	TypeInvitation = "https://didcomm.org/out-of-band/1.1/invitation"
	TypeRequestV2  = "https://didcomm.org/present-proof/2.0/request-presentation"
	TypeRequestV1  = "https://didcomm.org/present-proof/1.0/request-presentation"
	TypeAckV2      = "https://didcomm.org/present-proof/2.0/ack"
	TypeAckV1      = "https://didcomm.org/present-proof/1.0/ack"

	FormatIndyRequest = "hlindy/proof-req@v2.0"
	FormatDIFRequest  = "dif/presentation-exchange/definitions@v1.0"

	// AttachIDV1 is the attachment id Credo hard-codes for present-proof 1.0.
	AttachIDV1 = "libindy-request-presentation-0"
	// AttachIDIndy and AttachIDDIF are ACA-Py's ids for v2 attachments;
	// formats[].attach_id ties each to its format, so any id works.
	AttachIDIndy = "indy"
	AttachIDDIF  = "dif"
	// AttachIDRequest is the id of the request in requests~attach (Credo
	// and ACA-Py both use "request-0").
	AttachIDRequest = "request-0"

	// ServiceTypeDIDComm is the inline service type RFC 0434 receivers use.
	ServiceTypeDIDComm = "did-communication"
)

// Accept is the invitation's accept list: Credo's default, DIDComm v1
// envelopes (RFC 0019), which is what the local verifier speaks.
var Accept = []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"}

// Thread is the ~thread decorator (RFC 0008).
type Thread struct {
	ThID  string `json:"thid,omitempty"`
	PThID string `json:"pthid,omitempty"`
}

// ServiceDecorator is the ~service decorator (RFC 0056): where to send the
// reply and which keys to encrypt it to, as base58 verkeys.
type ServiceDecorator struct {
	RecipientKeys   []string `json:"recipientKeys"`
	RoutingKeys     []string `json:"routingKeys"`
	ServiceEndpoint string   `json:"serviceEndpoint"`
}

// InlineService is an RFC 0434 inline service block; its keys are did:key.
type InlineService struct {
	ID              string   `json:"id"`
	Type            string   `json:"type"`
	RecipientKeys   []string `json:"recipientKeys"`
	RoutingKeys     []string `json:"routingKeys"`
	ServiceEndpoint string   `json:"serviceEndpoint"`
}

// Attachment is an RFC 0017 attachment with inline data.
type Attachment struct {
	ID       string     `json:"@id"`
	MimeType string     `json:"mime-type"`
	Data     AttachData `json:"data"`
}

// AttachData holds the attachment content: exactly one of the two is set.
type AttachData struct {
	Base64 string          `json:"base64,omitempty"`
	JSON   json.RawMessage `json:"json,omitempty"`
}

// AttachFormat is one formats[] entry of present-proof 2.0.
type AttachFormat struct {
	AttachID string `json:"attach_id"`
	Format   string `json:"format"`
}

// RequestPresentationV2 is present-proof 2.0 request-presentation (RFC 0454).
type RequestPresentationV2 struct {
	Type        string            `json:"@type"`
	ID          string            `json:"@id"`
	GoalCode    string            `json:"goal_code,omitempty"`
	Comment     string            `json:"comment,omitempty"`
	WillConfirm bool              `json:"will_confirm"`
	Formats     []AttachFormat    `json:"formats"`
	Attach      []Attachment      `json:"request_presentations~attach"`
	Thread      Thread            `json:"~thread"`
	Service     *ServiceDecorator `json:"~service,omitempty"`
}

// RequestPresentationV1 is present-proof 1.0 request-presentation (RFC
// 0037): no formats, no will_confirm, no goal_code, Indy only.
type RequestPresentationV1 struct {
	Type    string            `json:"@type"`
	ID      string            `json:"@id"`
	Comment string            `json:"comment,omitempty"`
	Attach  []Attachment      `json:"request_presentations~attach"`
	Thread  Thread            `json:"~thread"`
	Service *ServiceDecorator `json:"~service,omitempty"`
}

// Invitation is an RFC 0434 1.1 out-of-band invitation. It has no
// handshake_protocols: the request is connectionless.
type Invitation struct {
	Type     string `json:"@type"`
	ID       string `json:"@id"`
	Label    string `json:"label,omitempty"`
	GoalCode string `json:"goal_code,omitempty"`
	// Goal is the goal's text, beside its code (RFC 0434: both
	// optional). ACA-Py refuses an invitation with a goal_code and no
	// goal ("Model cannot have goal_code without goal"), so one is never
	// sent without the other.
	Goal     string          `json:"goal,omitempty"`
	Accept   []string        `json:"accept"`
	Requests []Attachment    `json:"requests~attach"`
	Services []InlineService `json:"services"`
	Thread   *Thread         `json:"~thread,omitempty"`
}

// Ack is the present-proof ack (RFC 0015 adopted by RFC 0454/0037).
type Ack struct {
	Type   string `json:"@type"`
	ID     string `json:"@id"`
	Status string `json:"status"`
	Thread Thread `json:"~thread"`
}

// AnonCredsProofRequest is the hlindy/proof-req@v2.0 payload: the caller's
// proof request plus the verifier's nonce, in the AnonCreds field order.
type AnonCredsProofRequest struct {
	Name                string                           `json:"name"`
	Version             string                           `json:"version"`
	Nonce               string                           `json:"nonce"`
	RequestedAttributes map[string]backend.IndyAttribute `json:"requested_attributes"`
	RequestedPredicates map[string]backend.IndyPredicate `json:"requested_predicates"`
	NonRevoked          *backend.NonRevoked              `json:"non_revoked,omitempty"`
}

// DIFRequest is the dif/presentation-exchange/definitions@v1.0 payload
// (RFC 0510).
type DIFRequest struct {
	Options                DIFOptions      `json:"options"`
	PresentationDefinition json.RawMessage `json:"presentation_definition"`
}

// DIFOptions binds the holder's proof to this request.
type DIFOptions struct {
	Challenge string `json:"challenge"`
	Domain    string `json:"domain,omitempty"`
}
