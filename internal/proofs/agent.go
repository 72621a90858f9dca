package proofs

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/proofgate/proofgate/internal/outbox"
	"go.uber.org/zap"
)

// Errors of Agent.Receive. The HTTP layer answers all of them with one
// undifferentiated 400, so a sender learns nothing about which keys,
// threads or records exist.
var (
	// ErrMalformed: not an RFC 0019 envelope, or the message inside is not
	// a well-formed DIDComm message of the kind it claims to be.
	ErrMalformed = errors.New("proofs: malformed DIDComm message")
	// ErrNotForUs: the envelope is not addressed to a key of ours, or does
	// not decrypt with it.
	ErrNotForUs = errors.New("proofs: envelope is not for us")
	// ErrUnknownThread: the message is on no thread of ours, or on a
	// thread whose record was not made for the key, invitation or sender
	// the message names, or was made by another local backend on the
	// storage (another DIDComm endpoint and policy).
	ErrUnknownThread = errors.New("proofs: message is on no known thread")
	// ErrUnsupported: a message type the local verifier does not handle
	// (anything but presentation and problem-report of the record's
	// present-proof version).
	ErrUnsupported = errors.New("proofs: unsupported message type")
)

// A message for a record in a state that does not take it (a second
// presentation, a problem report on a done record) is a
// *backend.ConflictError.

// DefaultSendTimeout bounds one outbound POST (ack, problem report).
const DefaultSendTimeout = 10 * time.Second

// AgentConfig configures the DIDComm side of the verifier.
type AgentConfig struct {
	// AllowPrivateEndpoints lets acks and problem reports go to endpoints
	// that resolve to loopback, private (RFC 1918, RFC 4193), link-local,
	// CGNAT or other non-public addresses. Off by default: the endpoint
	// comes from the prover's ~service decorator, that is from a stranger,
	// and must not make the verifier POST into the operator's network.
	AllowPrivateEndpoints bool
	// SendTimeout bounds one outbound POST; DefaultSendTimeout when zero.
	SendTimeout time.Duration
	// Acks delivers acks from the outbox (a deliverer pooled across
	// config reloads, on the records' storage). Nil: the agent makes and
	// runs one of its own, stopped by Close.
	Acks *outbox.Deliverer
	// Logger receives delivery failures in full (records get categories).
	Logger *zap.Logger
	// VerifyTimeout bounds the verification of one presentation;
	// DefaultVerifyTimeout when zero.
	VerifyTimeout time.Duration
}

// Agent is the DIDComm side of the local verifier: it receives RFC 0019
// envelopes (Receive), and delivers the ack of an accepted presentation
// (Accept) and the problem report of a rejected one. Records and their
// transitions stay with the Service.
type Agent struct {
	svc    *Service
	client *http.Client
	// allowPrivate is AgentConfig.AllowPrivateEndpoints; guarded is a
	// client that keeps the address guard, for the acks a backend that
	// keeps it staged (the ack deliverer is shared by every local backend
	// on the storage, and the newest delivers).
	allowPrivate  bool
	guarded       *http.Client
	timeout       time.Duration
	verifyTimeout time.Duration
	logger        *zap.Logger
	acks          *outbox.Deliverer
	ownAcks       bool
	// unhandle withdraws the agent's ack functions from acks (Close).
	unhandle func()
	// background problem reports, waited for by Close
	wg sync.WaitGroup
}

// NewAgent returns the DIDComm side of svc.
func NewAgent(svc *Service, cfg AgentConfig) *Agent {
	if cfg.SendTimeout <= 0 {
		cfg.SendTimeout = DefaultSendTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	a := &Agent{
		svc:           svc,
		client:        newClient(cfg.AllowPrivateEndpoints, cfg.SendTimeout),
		allowPrivate:  cfg.AllowPrivateEndpoints,
		timeout:       cfg.SendTimeout,
		logger:        cfg.Logger,
		acks:          cfg.Acks,
		verifyTimeout: verifyTimeoutOr(cfg.VerifyTimeout),
	}
	a.guarded = a.client
	if a.allowPrivate {
		a.guarded = newClient(false, cfg.SendTimeout)
	}
	if a.acks == nil {
		a.acks = NewAckDeliverer(svc.storage, cfg.Logger, nil)
		a.ownAcks = true
	}
	a.unhandle = a.acks.Handle(AckKind, a.deliverAck, a.ackResult)
	if a.ownAcks {
		a.acks.Start()
	}
	return a
}

// Service returns the records side.
func (a *Agent) Service() *Service { return a.svc }

// Close withdraws the agent's ack functions from the deliverer (a pooled
// one then uses the previous agent's again if this one was the newest: a
// config Caddy refused must not keep the running config's acks), waits
// for problem reports still being sent (each bounded by the send
// timeout) and drops idle connections.
func (a *Agent) Close() {
	a.unhandle()
	a.wg.Wait()
	if a.ownAcks {
		a.acks.Stop()
	}
	a.client.CloseIdleConnections()
	a.guarded.CloseIdleConnections()
}
