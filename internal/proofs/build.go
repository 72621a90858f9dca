package proofs

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
)

// marshal is json.Marshal without HTML escaping: these messages are read
// by agents, not embedded in HTML, and "p_type":">=" should stay readable
// rather than become "\u003e=".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// nonceLimit is 2^80: AnonCreds nonces are 80-bit decimal strings.
var nonceLimit = new(big.Int).Lsh(big.NewInt(1), 80)

// NewNonce returns a fresh AnonCreds nonce: a uniformly random 80-bit
// number from crypto/rand in decimal, never zero and so never with a
// leading zero (ACA-Py requires ^[1-9][0-9]*$).
func NewNonce() (string, error) {
	for {
		n, err := rand.Int(rand.Reader, nonceLimit)
		if err != nil {
			return "", fmt.Errorf("proofs: nonce: %w", err)
		}
		if n.Sign() > 0 {
			return n.String(), nil
		}
	}
}

// RequestParams is what BuildRequest needs besides the caller's request.
type RequestParams struct {
	ThreadID     string // ~thread.thid, the record's threadId
	InvitationID string // ~thread.pthid: the invitation that carries it
	// Service is where the prover sends its presentation: our verkey and
	// DIDComm endpoint.
	Service ServiceDecorator
	// Domain goes into DIF options (the verifier's host), so a holder's
	// linked-data proof is bound to us as well as to the challenge.
	Domain string
}

// Built is a request-presentation and the secret it binds the answer to.
type Built struct {
	Message []byte // the request-presentation JSON, as attached
	// Nonce is the AnonCreds nonce (indy) or the DIF challenge (PE); the
	// presentation must echo it.
	Nonce string
}

// BuildRequest builds the present-proof request-presentation for req: 2.0
// with an hlindy/proof-req@v2.0 (base64) or DIF definitions (json)
// attachment, or 1.0 with the libindy attachment. Every call draws a fresh
// message @id and nonce or challenge.
func BuildRequest(req backend.OOBRequest, p RequestParams) (Built, error) {
	msgID, err := uuid.NewRandom()
	if err != nil {
		return Built{}, err
	}
	thread := Thread{ThID: p.ThreadID, PThID: p.InvitationID}
	service := p.Service
	if service.RoutingKeys == nil {
		service.RoutingKeys = []string{}
	}

	var (
		attach AttachData
		format AttachFormat
		nonce  string
	)
	switch req.RequestType {
	case backend.RequestIndy:
		if req.Indy == nil {
			return Built{}, errors.New("proofs: indy request without proofFormats.indy")
		}
		if nonce, err = NewNonce(); err != nil {
			return Built{}, err
		}
		indy := req.Indy.WithBothMaps()
		b := backend.AppendAnonCredsRequest(nil, &indy, nonce, false)
		attach = AttachData{Base64: base64.StdEncoding.EncodeToString(b)}
		format = AttachFormat{AttachID: AttachIDIndy, Format: FormatIndyRequest}
	case backend.RequestPresentationExchange:
		if req.ProtocolVersion == backend.ProtocolV1 {
			return Built{}, errors.New("proofs: present-proof 1.0 carries only indy requests")
		}
		if len(req.PresentationDefinition) == 0 {
			return Built{}, errors.New("proofs: presentationExchange request without a definition")
		}
		challenge, err := uuid.NewRandom()
		if err != nil {
			return Built{}, err
		}
		nonce = challenge.String()
		b, err := marshal(DIFRequest{
			Options:                DIFOptions{Challenge: nonce, Domain: p.Domain},
			PresentationDefinition: req.PresentationDefinition,
		})
		if err != nil {
			return Built{}, err
		}
		attach = AttachData{JSON: b}
		format = AttachFormat{AttachID: AttachIDDIF, Format: FormatDIFRequest}
	default:
		return Built{}, fmt.Errorf("proofs: unknown request type %q", req.RequestType)
	}

	var msg any
	switch req.ProtocolVersion {
	case backend.ProtocolV2:
		msg = RequestPresentationV2{
			Type:        TypeRequestV2,
			ID:          msgID.String(),
			GoalCode:    req.GoalCode,
			Comment:     req.Comment,
			WillConfirm: true, // we ack on accept; Credo and ACA-Py default to true
			Formats:     []AttachFormat{format},
			Attach:      []Attachment{{ID: format.AttachID, MimeType: "application/json", Data: attach}},
			Thread:      thread,
			Service:     &service,
		}
	case backend.ProtocolV1:
		msg = RequestPresentationV1{
			Type:    TypeRequestV1,
			ID:      msgID.String(),
			Comment: req.Comment,
			Attach:  []Attachment{{ID: AttachIDV1, MimeType: "application/json", Data: attach}},
			Thread:  thread,
			Service: &service,
		}
	default:
		return Built{}, fmt.Errorf("proofs: unknown protocol version %q", req.ProtocolVersion)
	}
	b, err := appendRequestMessage(nil, msg)
	if err != nil {
		return Built{}, err
	}
	return Built{Message: b, Nonce: nonce}, nil
}

// InvitationParams is what BuildInvitation needs.
type InvitationParams struct {
	ID             string
	Label          string
	GoalCode       string
	ParentThreadID string // the caller's parentThreadId: ~thread.pthid
	Request        []byte // the request-presentation JSON
	RecipientKey   string // did:key of the verifier key
	Endpoint       string // our DIDComm endpoint
}

// BuildInvitation wraps a request-presentation in a connectionless RFC
// 0434 1.1 invitation with one inline did-communication service.
//
// The request goes in as data.json, as ACA-Py attaches it (Credo uses
// base64; receivers must take both, RFC 0017, and both Credo's
// Attachment.getDataAsJson and ACA-Py's AttachDecorator do). JSON keeps
// the ?oob= URL about a quarter shorter than base64 inside base64url would,
// which matters because the URL is what goes into the QR code.
func BuildInvitation(p InvitationParams) ([]byte, error) {
	inv := Invitation{
		Type:     TypeInvitation,
		ID:       p.ID,
		Label:    p.Label,
		GoalCode: p.GoalCode,
		Goal:     p.GoalCode, // the interface names a goal by its code alone
		Accept:   Accept,
		Requests: []Attachment{{
			ID:       AttachIDRequest,
			MimeType: "application/json",
			Data:     AttachData{JSON: p.Request},
		}},
		Services: []InlineService{{
			ID:              "#inline-0",
			Type:            ServiceTypeDIDComm,
			RecipientKeys:   []string{p.RecipientKey},
			RoutingKeys:     []string{},
			ServiceEndpoint: p.Endpoint,
		}},
	}
	if p.ParentThreadID != "" {
		inv.Thread = &Thread{PThID: p.ParentThreadID}
	}
	return appendInvitation(nil, &inv)
}

// InvitationURL returns the RFC 0434 long URL: base with an oob query
// parameter holding the unpadded base64url invitation JSON, appended to any
// query base already has and placed before any fragment.
//
// The URL is put together in one buffer around the encoded invitation:
// what comes before it and after it depends on base only, and is kept for
// the last base seen (the verifier's public URL, the same every time).
func InvitationURL(base string, invitation []byte) (string, error) {
	parts, err := invitationURLParts(base)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.Grow(len(parts.head) + base64.RawURLEncoding.EncodedLen(len(invitation)) + len(parts.tail))
	sb.WriteString(parts.head)
	// Encoded in chunks of whole 3-byte groups through a buffer on the
	// stack, so the URL is the only allocation.
	var chunk [1024]byte
	const step = len(chunk) / 4 * 3
	for len(invitation) > 0 {
		n := min(step, len(invitation))
		sb.Write(base64.RawURLEncoding.AppendEncode(chunk[:0], invitation[:n]))
		invitation = invitation[n:]
	}
	sb.WriteString(parts.tail)
	return sb.String(), nil
}

// urlParts is what InvitationURL writes around the encoded invitation for
// a base URL: url.URL.String() of base with "oob=" appended to its query
// (after "&" when it has one) is head, and its fragment is tail.
type urlParts struct {
	base, head, tail string
}

var lastURLParts atomic.Pointer[urlParts]

func invitationURLParts(base string) (*urlParts, error) {
	if p := lastURLParts.Load(); p != nil && p.base == base {
		return p, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("proofs: invitation base URL: %w", err)
	}
	p := &urlParts{base: base}
	if u.Fragment != "" {
		p.tail = "#" + u.EscapedFragment()
	}
	u.Fragment, u.RawFragment, u.ForceQuery = "", "", false
	if u.RawQuery == "" {
		u.RawQuery = "oob="
	} else {
		u.RawQuery += "&oob="
	}
	p.head = u.String()
	lastURLParts.Store(p)
	return p, nil
}

// BuildAck builds the present-proof ack (status OK) on the record's
// thread, 2.0 or 1.0 to match the request.
func BuildAck(protocolVersion, threadID, invitationID string) ([]byte, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return nil, err
	}
	typ := TypeAckV2
	if protocolVersion == backend.ProtocolV1 {
		typ = TypeAckV1
	}
	return marshal(Ack{Type: typ, ID: id.String(), Status: "OK", Thread: Thread{ThID: threadID, PThID: invitationID}})
}
