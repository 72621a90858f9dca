// Package backend defines the seam between the HTTP handlers and whatever
// serves proof requests: the embedded local verifier or an upstream agent.
// Backends never write HTTP; they return typed errors (errors.go) that the
// handlers map to statuses.
package backend

import (
	"context"
	"encoding/json"
	"time"
)

// Backend serves the two operations for the orgs routed to it.
type Backend interface {
	// SendOutOfBandRequest creates one proof record and its out-of-band
	// invitation for org. It must leave nothing behind when it fails.
	SendOutOfBandRequest(ctx context.Context, org Org, req OOBRequest) (OOBResult, error)

	// AcceptPresentation accepts the presentation received for the record
	// (the verifier acks it) and returns the updated record.
	AcceptPresentation(ctx context.Context, org Org, proofRecordID string) (ProofRecord, error)

	// RecordOrg tells which org owns a proof record, for authorizing
	// AcceptPresentation. It returns ErrNotFound for an unknown record.
	RecordOrg(ctx context.Context, proofRecordID string) (orgID string, err error)
}

// Org is the organization a request acts for, with the tenant it maps to on
// a multi-tenant agent (empty for dedicated agents and the local backend).
type Org struct {
	ID     string
	Tenant string
}

// RequestType is the requestType query parameter of 4.1.
type RequestType string

// The two request types of 4.1.
const (
	RequestIndy                 RequestType = "indy"
	RequestPresentationExchange RequestType = "presentationExchange"
)

// Protocol versions of present-proof, as the interface spells them.
const (
	ProtocolV1 = "v1" // present-proof 1.0 (RFC 0037), indy only
	ProtocolV2 = "v2" // present-proof 2.0 (RFC 0454)
)

// OOBRequest is a validated, normalized 4.1 request: never the raw JSON.
type OOBRequest struct {
	RequestType     RequestType
	ProtocolVersion string // ProtocolV1 or ProtocolV2, never empty
	IsShortenURL    bool
	ReuseConnection bool // defaults to true when the caller omits it

	// ShortURLExpiresAt is set, with IsShortenURL, for a backend that
	// keeps short URLs in its own records (ShortURLKeeper): when the
	// short URL stops answering.
	ShortURLExpiresAt time.Time

	// Indy is set exactly when RequestType is RequestIndy.
	Indy *IndyProofRequest

	// PresentationDefinition is set exactly when RequestType is
	// RequestPresentationExchange: one DIF presentation definition object
	// (whatever spelling the caller used), always with an "id".
	PresentationDefinition json.RawMessage
	// PresentationDefinitionID is the "id" inside PresentationDefinition.
	PresentationDefinitionID string
	// DefinitionPath is the caller's path of the definition
	// (ListDefinitionPath for the listed form) and DescriptorsKey its
	// spelling of input_descriptors ("inputDescriptors"), "" for the
	// defaults: a backend's refusal names a field as the caller wrote it
	// (DescriptorField, DefinitionField), PresentationDefinition being
	// in the spec's spelling.
	DefinitionPath string
	DescriptorsKey string

	Emails          []string // bare addresses, unique case-insensitively
	AutoAcceptProof string   // "", "always", "contentApproved" or "never"
	GoalCode        string
	Comment         string
	Label           string
	ParentThreadID  string
}

// IndyProofRequest is proofFormats.indy: an AnonCreds proof request without
// its nonce (the backend adds a fresh one).
type IndyProofRequest struct {
	Name                string                   `json:"name"`
	Version             string                   `json:"version"`
	RequestedAttributes map[string]IndyAttribute `json:"requested_attributes"`
	RequestedPredicates map[string]IndyPredicate `json:"requested_predicates"`
	NonRevoked          *NonRevoked              `json:"non_revoked,omitempty"`
}

// WithBothMaps returns r with absent requested_attributes and
// requested_predicates as empty maps: AnonCreds, credo-controller and
// ACA-Py want both objects, even empty ({}, never null).
func (r IndyProofRequest) WithBothMaps() IndyProofRequest {
	if r.RequestedAttributes == nil {
		r.RequestedAttributes = map[string]IndyAttribute{}
	}
	if r.RequestedPredicates == nil {
		r.RequestedPredicates = map[string]IndyPredicate{}
	}
	return r
}

// IndyAttribute is one entry of requested_attributes: exactly one of Name
// and Names is set.
type IndyAttribute struct {
	Name         string              `json:"name,omitempty"`
	Names        []string            `json:"names,omitempty"`
	Restrictions []map[string]string `json:"restrictions,omitempty"`
	NonRevoked   *NonRevoked         `json:"non_revoked,omitempty"`
}

// IndyPredicate is one entry of requested_predicates.
type IndyPredicate struct {
	Name         string              `json:"name"`
	PType        string              `json:"p_type"`
	PValue       int32               `json:"p_value"`
	Restrictions []map[string]string `json:"restrictions,omitempty"`
	NonRevoked   *NonRevoked         `json:"non_revoked,omitempty"`
}

// NonRevoked is an AnonCreds non-revocation interval in epoch seconds.
type NonRevoked struct {
	From *int64 `json:"from,omitempty"`
	To   *int64 `json:"to,omitempty"`
}

// OOBResult is what a backend created for one OOBRequest.
type OOBResult struct {
	ProofRecord ProofRecord
	// Invitation is the RFC 0434 out-of-band invitation message.
	Invitation json.RawMessage
	// OutOfBandID is the invitation's "@id".
	OutOfBandID string
	// InvitationURL is the long form, <endpoint>?oob=<base64url(invitation)>.
	InvitationURL string
	// ShortURLID is the id of the short URL the backend made in the
	// record itself (a ShortURLKeeper given ShortURLExpiresAt); empty
	// otherwise.
	ShortURLID string
}

// ProofRecord is Credo's ProofExchangeRecord JSON: the interface's six
// fields (metadata, id, createdAt, connectionId, threadId, protocolVersion)
// plus the state and bookkeeping that existing clients already parse.
type ProofRecord struct {
	Metadata        map[string]any `json:"metadata"`
	ID              string         `json:"id"`
	CreatedAt       string         `json:"createdAt"`
	UpdatedAt       string         `json:"updatedAt,omitempty"`
	ConnectionID    string         `json:"connectionId,omitempty"`
	ThreadID        string         `json:"threadId"`
	ParentThreadID  string         `json:"parentThreadId,omitempty"`
	ProtocolVersion string         `json:"protocolVersion"`
	State           string         `json:"state"`
	Role            string         `json:"role"`
	IsVerified      *bool          `json:"isVerified,omitempty"`
	ErrorMessage    string         `json:"errorMessage,omitempty"`
	OrgID           string         `json:"orgId,omitempty"`
	AutoAcceptProof string         `json:"autoAcceptProof,omitempty"`
}

// Proof record states (Credo's names, RFC 0454 verifier states).
const (
	StateRequestSent          = "request-sent"
	StateProposalReceived     = "proposal-received"
	StatePresentationReceived = "presentation-received"
	StateDone                 = "done"
	StateAbandoned            = "abandoned"
)

// RoleVerifier is the role of every record proofgate creates.
const RoleVerifier = "verifier"

// TimeFormat is how ProofRecord timestamps are written: ISO 8601 UTC with
// milliseconds, as Credo writes them.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Discarder is implemented by backends that can remove a record they just
// created, so that a request which fails after the backend's part (for
// example while storing its short URL) leaves nothing behind. It is given
// what SendOutOfBandRequest returned: an agent's invitation is a record
// of its own (OutOfBandID), which must go too, or a holder who had the
// invitation could still answer it. A backend that cannot discard for
// org returns an error wrapping errors.ErrUnsupported, having done
// nothing.
type Discarder interface {
	DiscardRecord(ctx context.Context, org Org, created OOBResult) error
}

// RecordOwnershipChecker is implemented by backends that can ask their
// agent whether a record it holds belongs to an org (a proof request made
// on the agent directly, not through proofgate). The answer proves
// ownership only where the org has the agent, or a tenant of it, to itself.
type RecordOwnershipChecker interface {
	RecordOrgIn(ctx context.Context, org Org, proofRecordID string) (bool, error)
}

// RecordOwnerFinder is implemented by backends that remember, beside the
// org that created a record, where it was created: the org's tenant and
// the agent. That is where the record lives, even once the org is routed
// to another backend or tenant (an org moved off an agent, or off a
// tenant, still reads and accepts the records it made there).
type RecordOwnerFinder interface {
	RecordOwner(ctx context.Context, proofRecordID string) (Owner, error)
}

// Owner is who made a record through proofgate: the org, with the tenant
// of it the record lives on, and the agent (an AgentNamer's AgentName; ""
// when not remembered).
type Owner struct {
	Org
	Agent string
	// RequestType is the request's type (RequestIndy or
	// RequestPresentationExchange); empty for records remembered by
	// earlier versions.
	RequestType RequestType
}

// AgentNamer is implemented by backends that call an agent: AgentName
// names it as the owners of the records made through it do.
type AgentNamer interface {
	AgentName() string
}

// TenantValidator is implemented by backends that can tell at load time
// whether they are able to act for a tenant (for example, that they have
// or can get its token).
type TenantValidator interface {
	ValidateTenant(tenant string) error
}

// OrgChecker is implemented by upstream backends that can check, once the
// configuration is loaded, that their agent serves the orgs mapped to them
// (that each tenant exists, that an org without tenant is not on a
// multi-tenant agent). The checks run in the background and report in
// the log; Cleanup stops them. An org with ID "*" stands for the orgs that
// reach the backend as the default one.
type OrgChecker interface {
	CheckOrgs(orgs []Org)
}

// ShortURLKeeper is implemented by backends that keep a short URL in the
// record it leads to, so that a create asking for one makes no write of
// its own for it (the local verifier: one durable write per create). The
// gateway keeps the short URLs of every other backend as documents of
// their own.
type ShortURLKeeper interface {
	// ResolveShortURL returns what a short-URL id the backend made leads
	// to, with its record's state: ErrNotFound for an id it cannot have
	// made (without any I/O when its form shows it, as another backend's
	// ids of another length do), and for one whose record is gone, asked
	// for no short URL, or whose short URL has expired.
	ResolveShortURL(ctx context.Context, id string) (ShortURL, error)
}

// ShortURL is what a short URL leads to.
type ShortURL struct {
	// Invitation is the out-of-band invitation JSON.
	Invitation json.RawMessage
	// LongURL is its long ?oob= URL.
	LongURL string
	// State is the state of the record behind it where the backend keeps
	// its short URLs (ShortURLKeeper), read with it; empty otherwise.
	State string
}

// MetadataSetter is implemented by backends that keep proof records
// themselves and can note facts on them (an e-mail delivery outcome), so
// clients reading the record see them.
type MetadataSetter interface {
	SetRecordMetadata(ctx context.Context, proofRecordID, key string, value any) error
}
