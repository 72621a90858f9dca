// Package proofs is the embedded verifier of the local backend (DESIGN §4):
// proof records in Caddy storage, their state machine, and the
// present-proof request-presentation and RFC 0434 invitation that carry a
// request to a wallet.
package proofs

import (
	"context"
	"crypto/cipher"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/didkey"
	"github.com/proofgate/proofgate/internal/keyseal"
	"github.com/proofgate/proofgate/internal/recordlog"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/verify"
)

// Config configures a Service.
type Config struct {
	// PublicURL is the base of the ?oob= invitation URL.
	PublicURL string
	// Endpoint is the DIDComm endpoint advertised to wallets.
	Endpoint string
	// Label is the invitation label when a request has none.
	Label string
	// ClusterLocks also takes a storage lock around every record
	// transition, for instances sharing one storage; the in-process lock
	// alone only serializes one instance.
	ClusterLocks bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// RecordRetention is how long done and abandoned records are kept
	// (with their per-record keys) before the sweeper deletes them; zero
	// keeps them.
	RecordRetention time.Duration
	// InvitationTTL is how long an invitation waits for its presentation:
	// after it a presentation is refused with a problem report, and the
	// sweeper abandons the record. Zero: no limit.
	InvitationTTL time.Duration
	// Verifiers verify presentations cryptographically, by attachment
	// format (internal/verify). A format without a verifier is judged by
	// the structural check alone and never gets isVerified true.
	Verifiers verify.Set
	// Policy identifies what this backend judges presentations by (its
	// verifiers' options, InvitationTTL, the outbound guard). A record
	// is answered only by a backend with its DIDComm endpoint or, when
	// both name one, its policy: instances of one site configured alike
	// may each advertise their own endpoint, but another site on the
	// storage does not judge this site's records (Service.madeHere).
	// Empty: the endpoint alone decides.
	Policy string
	// Sealer, when set, encrypts private keys at rest (org keys and
	// record keys); keys stored in plaintext stay readable.
	Sealer *keyseal.Sealer
	// Logger logs what happens to the record journal (nil: nothing).
	Logger *zap.Logger
}

// Service creates and advances proof records.
type Service struct {
	cfg         Config
	storage     certmagic.Storage
	records     recordStore
	journal     *recordlog.Log // nil unless records are in the journal
	connections *store.Store
	keys        *keyring
	domain      string
	sink        atomic.Pointer[sinkRef]
	// shortCipher keys short-URL ids, once its secret is known.
	shortCipher atomic.Pointer[cipher.Block]
}

// recordLocks serializes transitions of one record in this process. It is
// process-wide, not per Service: during a Caddy config reload the old and
// the new module instance serve at the same time, and they must not both
// accept a record. Record ids are random UUIDs, so Services on different
// storages never contend on one.
var recordLocks keyedMutex

// New returns a Service keeping records under proofgate/records/ and org
// keys under proofgate/keys/ in storage.
func New(storage certmagic.Storage, cfg Config) (*Service, error) {
	if storage == nil {
		return nil, errors.New("proofs: no storage")
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("proofs: public URL %q is not an absolute URL", cfg.PublicURL)
	}
	if cfg.Endpoint == "" {
		return nil, errors.New("proofs: no DIDComm endpoint")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	records, journal, err := openRecords(storage, cfg.ClusterLocks, cfg.Logger)
	if err != nil {
		return nil, err
	}
	s := &Service{
		cfg:         cfg,
		storage:     storage,
		records:     records,
		journal:     journal,
		connections: store.New(storage, "connections"),
		keys:        newKeyring(store.New(storage, "keys"), cfg.Now, cfg.Sealer),
		domain:      u.Host,
	}
	s.register()
	return s, nil
}

// Close releases the record journal, if records are kept in one; the
// Service must not be used after.
func (s *Service) Close() {
	s.unregister()
	if s.journal != nil {
		recordlog.Release(s.journal)
		s.journal = nil
	}
}

// unavailable marks a storage failure that did not come through store
// (locks) as backend.ErrUnavailable.
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", backend.ErrUnavailable, err)
}

// Create makes one proof record in state request-sent with its
// request-presentation and invitation. The record is the only document it
// writes (an org's first request also creates the org key); when that
// write fails nothing of the request remains.
func (s *Service) Create(ctx context.Context, org backend.Org, req backend.OOBRequest) (backend.OOBResult, error) {
	if org.ID == "" {
		return backend.OOBResult{}, errors.New("proofs: no org")
	}
	var refused []backend.UnsupportedError
	if req.RequestType == backend.RequestPresentationExchange {
		refused = unenforced(&req)
	}
	if u := backend.Unsupported(append(refused, unmeetableRestriction(req.Indy)...)); u != nil {
		return backend.OOBResult{}, u
	}
	var (
		recordID uuid.UUID
		priv     ed25519.PrivateKey
		keyRef   KeyRef
	)
	if req.ReuseConnection {
		ok, err := s.keys.forOrg(ctx, org.ID)
		if err != nil {
			return backend.OOBResult{}, err
		}
		if recordID, err = uuid.NewRandom(); err != nil {
			return backend.OOBResult{}, err
		}
		priv = ok.Key
		keyRef = KeyRef{Kind: KeyOrg, Verkey: didkey.Verkey(priv.Public().(ed25519.PublicKey))}
	} else {
		pub, p, err := didkey.Generate()
		if err != nil {
			return backend.OOBResult{}, err
		}
		priv = p
		recordID = RecordIDForKey(pub)
		keyRef = KeyRef{Kind: KeyRecord, Verkey: didkey.Verkey(pub), Seed: priv.Seed()}
	}
	pub := priv.Public().(ed25519.PublicKey)
	threadID := ThreadID(recordID).String()
	invitationID := InvitationID(recordID).String()

	built, err := BuildRequest(req, RequestParams{
		ThreadID:     threadID,
		InvitationID: invitationID,
		Service: ServiceDecorator{
			RecipientKeys:   []string{keyRef.Verkey},
			RoutingKeys:     []string{},
			ServiceEndpoint: s.cfg.Endpoint,
		},
		Domain: s.domain,
	})
	if err != nil {
		return backend.OOBResult{}, err
	}
	label := req.Label
	if label == "" {
		label = s.cfg.Label
	}
	invitation, err := BuildInvitation(InvitationParams{
		ID:             invitationID,
		Label:          label,
		GoalCode:       req.GoalCode,
		ParentThreadID: req.ParentThreadID,
		Request:        built.Message,
		RecipientKey:   didkey.Encode(pub),
		Endpoint:       s.cfg.Endpoint,
	})
	if err != nil {
		return backend.OOBResult{}, err
	}
	longURL, err := InvitationURL(s.cfg.PublicURL, invitation)
	if err != nil {
		return backend.OOBResult{}, err
	}

	now := s.cfg.Now().UTC().Format(backend.TimeFormat)
	doc := Doc{
		Format: DocFormat,
		Record: backend.ProofRecord{
			Metadata:        map[string]any{},
			ID:              recordID.String(),
			CreatedAt:       now,
			UpdatedAt:       now,
			ThreadID:        threadID,
			ParentThreadID:  req.ParentThreadID,
			ProtocolVersion: req.ProtocolVersion,
			State:           backend.StateRequestSent,
			Role:            backend.RoleVerifier,
			OrgID:           org.ID,
			AutoAcceptProof: req.AutoAcceptProof,
		},
		RequestType:   req.RequestType,
		Request:       built.Message,
		Nonce:         built.Nonce,
		InvitationID:  invitationID,
		Invitation:    invitation,
		InvitationURL: longURL,
		Endpoint:      s.cfg.Endpoint,
		Policy:        s.cfg.Policy,
		Key:           keyRef,
	}
	if req.RequestType == backend.RequestPresentationExchange {
		doc.Domain = s.domain
	}
	var shortID string
	if req.IsShortenURL && !req.ShortURLExpiresAt.IsZero() {
		c, err := s.shortURLCipher(ctx, true)
		if err != nil {
			return backend.OOBResult{}, err
		}
		doc.ShortURLExpiresAt = req.ShortURLExpiresAt.UTC().Format(backend.TimeFormat)
		shortID = ShortURLID(c, recordID)
	}
	if err := s.records.Put(ctx, doc.Record.ID, s.sealedDoc(&doc)); err != nil {
		// Some storage modules can fail after writing (a timeout on the
		// reply); make sure no record of a failed request survives.
		_ = s.records.Delete(context.WithoutCancel(ctx), doc.Record.ID)
		return backend.OOBResult{}, err
	}
	return backend.OOBResult{
		ProofRecord:   doc.Record,
		Invitation:    invitation,
		OutOfBandID:   invitationID,
		InvitationURL: longURL,
		ShortURLID:    shortID,
	}, nil
}

// Accept accepts the presentation of a record of org: it must be in
// presentation-received (else *backend.ConflictError naming its state). It
// builds the ack (kept in Doc.Ack for the DIDComm sender) and moves the
// record to done. Of concurrent accepts of one record exactly one wins; the
// others see done. The DIDComm side (Agent.Accept) also queues the ack.
func (s *Service) Accept(ctx context.Context, org backend.Org, recordID string) (backend.ProofRecord, error) {
	doc, err := s.accept(ctx, org, recordID, nil)
	if err != nil {
		return backend.ProofRecord{}, err
	}
	return doc.Record, nil
}

// accept is Accept with extra staged in the transition's write (the ack's
// outbox message).
func (s *Service) accept(ctx context.Context, org backend.Org, recordID string, extra func(context.Context, *Doc) (backend.Staged, error)) (*Doc, error) {
	return s.updateStaged(ctx, recordID, func(d *Doc) error {
		// The handler authorizes by RecordOrg first; a record of another
		// org is not revealed here either.
		if d.Record.OrgID != org.ID {
			return backend.ErrNotFound
		}
		if err := CheckTransition(d.Record.State, backend.StateDone); err != nil {
			return err
		}
		ack, err := BuildAck(d.Record.ProtocolVersion, d.Record.ThreadID, d.InvitationID)
		if err != nil {
			return err
		}
		d.Ack = ack
		d.Record.State = backend.StateDone
		return nil
	}, extra)
}

// Presentation is a presentation the DIDComm side received on a record's
// thread and checked.
type Presentation struct {
	// Message is the plaintext presentation message.
	Message json.RawMessage
	// TheirService is the prover's ~service, where the ack goes.
	TheirService *ServiceDecorator
	// TheirVerkey is the authcrypt sender key ("" for anoncrypt).
	TheirVerkey string
	// SignaturesVerified says the presentation's signatures (AnonCreds CL
	// proof, linked-data proofs) were checked and hold. Only then does the
	// record say isVerified: true; a presentation that merely answers the
	// request leaves isVerified unset, so no client mistakes a structural
	// check for a cryptographic one.
	SignaturesVerified bool
}

// MarkPresentationReceived records a presentation that answers the
// request on a record in request-sent and moves it to
// presentation-received. metadata.verification says what was checked.
// (The DIDComm side uses ReceivePresentation, which checks under the lock.)
func (s *Service) MarkPresentationReceived(ctx context.Context, recordID string, p Presentation) (backend.ProofRecord, error) {
	doc, err := s.update(ctx, recordID, func(d *Doc) error {
		var verified *bool
		if p.SignaturesVerified {
			v := true
			verified = &v
		}
		if err := toPresentationReceived(d, p, map[string]any{"answersRequest": true, "signaturesVerified": p.SignaturesVerified}, verified); err != nil {
			return err
		}
		return s.attachConnection(ctx, d, p.TheirService, p.TheirVerkey)
	})
	if err != nil {
		return backend.ProofRecord{}, err
	}
	return doc.Record, nil
}

// Abandon moves a live record to abandoned with an error message.
func (s *Service) Abandon(ctx context.Context, recordID, errorMessage string) (backend.ProofRecord, error) {
	doc, err := s.update(ctx, recordID, func(d *Doc) error {
		return toAbandoned(d, errorMessage)
	})
	if err != nil {
		return backend.ProofRecord{}, err
	}
	return doc.Record, nil
}

// toPresentationReceived is the one transition to presentation-received:
// every path that records a presentation goes through it. isVerified is
// nil unless a verifier judged the presentation.
func toPresentationReceived(d *Doc, p Presentation, verification map[string]any, isVerified *bool) error {
	if err := CheckTransition(d.Record.State, backend.StatePresentationReceived); err != nil {
		return err
	}
	d.Record.State = backend.StatePresentationReceived
	d.Record.IsVerified = isVerified
	setVerification(d, verification)
	keepPresentation(d, p)
	return nil
}

// toAbandoned is the one transition to abandoned (a problem report, a
// presentation that does not answer the request or fails verification).
func toAbandoned(d *Doc, errorMessage string) error {
	if err := CheckTransition(d.Record.State, backend.StateAbandoned); err != nil {
		return err
	}
	d.Record.State = backend.StateAbandoned
	d.Record.ErrorMessage = errorMessage
	return nil
}

// keepPresentation stores what a presentation brought: the message, and
// the prover's way back and key.
func keepPresentation(d *Doc, p Presentation) {
	d.Presentation = p.Message
	d.TheirService = p.TheirService
	d.TheirVerkey = p.TheirVerkey
}

func setVerification(d *Doc, verification map[string]any) {
	if verification == nil {
		return
	}
	if d.Record.Metadata == nil {
		d.Record.Metadata = map[string]any{}
	}
	d.Record.Metadata[MetadataVerification] = verification
}
