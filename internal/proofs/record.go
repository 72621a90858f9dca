package proofs

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/backend"
)

// DocFormat is the version of the stored Doc layout.
const DocFormat = 1

// Doc is what the local verifier stores per proof record, as one JSON
// document at proofgate/records/<recordId>.json: the Credo-shaped record the
// API returns, plus everything the DIDComm side needs to answer the prover
// later. It is written whole, once per create and once per transition.
type Doc struct {
	Format int `json:"format"`
	// Record is the ProofExchangeRecord the API returns.
	Record backend.ProofRecord `json:"record"`
	// RequestType is indy or presentationExchange.
	RequestType backend.RequestType `json:"requestType"`
	// Request is the request-presentation attached to the invitation; the
	// presentation is checked against it.
	Request json.RawMessage `json:"request"`
	// Nonce is the AnonCreds nonce (indy) or DIF challenge (PE) the
	// presentation must carry.
	Nonce string `json:"nonce"`
	// Domain is the DIF options.domain, if any.
	Domain string `json:"domain,omitempty"`
	// InvitationID is the invitation @id (derived from the record id).
	InvitationID string `json:"invitationId"`
	// Invitation is the RFC 0434 invitation JSON.
	Invitation json.RawMessage `json:"invitation"`
	// InvitationURL is the long ?oob= URL.
	InvitationURL string `json:"invitationUrl"`
	// ShortURLExpiresAt, set when the create asked for a short URL, is
	// when that URL (ShortURLID of the record id) stops answering
	// (backend.TimeFormat). The short URL lives in the record, so it costs
	// the create no write of its own.
	ShortURLExpiresAt string `json:"shortUrlExpiresAt,omitempty"`
	// Endpoint is the DIDComm endpoint of the backend that made the
	// record (Config.Endpoint), the one its invitation sends the wallet
	// to, and Policy that backend's Config.Policy: only a backend with
	// either takes messages on the record's thread (Service.madeHere).
	// Empty in records stored before them; their invitation names the
	// endpoint.
	Endpoint string `json:"endpoint,omitempty"`
	Policy   string `json:"policy,omitempty"`
	// Key is the verifier key the invitation advertises.
	Key KeyRef `json:"key"`

	// Set when a presentation arrives (MarkPresentationReceived).

	// Presentation is the presentation message as received (plaintext).
	Presentation json.RawMessage `json:"presentation,omitempty"`
	// TheirService is the prover's ~service: where the ack goes.
	TheirService *ServiceDecorator `json:"theirService,omitempty"`
	// TheirVerkey is the prover's key when it authcrypted (empty for
	// anoncrypt).
	TheirVerkey string `json:"theirVerkey,omitempty"`

	// Ack is the ack built by Accept, for the DIDComm sender to deliver.
	Ack json.RawMessage `json:"ack,omitempty"`

	// States lists the states the record has been in, in order (written
	// by every transition), so a notification can be checked against what
	// really happened (Service.Reached).
	States []string `json:"states,omitempty"`
}

// Key kinds of KeyRef.
const (
	KeyOrg    = "org"    // the org's stable key (reuseConnection true)
	KeyRecord = "record" // a key of this record only (reuseConnection false)
)

// KeyRef names the verifier key of a record. An org key lives in the key
// documents (keys.go); a record key's seed lives here, in the record's own
// single write, and the record id is derived from its public key
// (RecordIDForKey) so an inbound envelope finds it.
type KeyRef struct {
	Kind   string `json:"kind"`
	Verkey string `json:"verkey"`
	// Seed is the Ed25519 seed of a KeyRecord key (base64 in JSON).
	Seed []byte `json:"seed,omitempty"`
	// SealedSeed replaces Seed in storage when key_encryption_key is set
	// (keyseal); in memory Seed is always the plaintext.
	SealedSeed string `json:"sealedSeed,omitempty"`
}
