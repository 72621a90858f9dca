// Package local is the Caddy module proofgate.backends.local: the embedded
// verifier (DESIGN §4). It keeps proof records in Caddy storage and talks
// to wallets itself, with no agent behind it. The work is done by
// internal/proofs; this package is its Caddy shell.
package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/anoncreds/registry"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/bodyread"
	"github.com/proofgate/proofgate/internal/proofs"
	"github.com/proofgate/proofgate/internal/redact"
	"github.com/proofgate/proofgate/internal/verify/w3c"
)

func init() {
	caddy.RegisterModule(Local{})
}

// maxLabel caps the label: it ends up in every invitation and QR code.
const maxLabel = 200

// Local is the embedded verifier backend. It builds present-proof
// requests and RFC 0434 out-of-band invitations itself and keeps its proof
// records in Caddy storage under proofgate/.
type Local struct {
	// PublicURL is the public base URL of this verifier: invitation URLs
	// are <public_url>?oob=<invitation>, and the short URLs the gateway
	// hands out live under it. Required; an absolute http or https URL.
	PublicURL string `json:"public_url,omitempty"`

	// DIDCommEndpoint is the DIDComm endpoint advertised to wallets in
	// invitations, where they post their presentations. Default:
	// <public_url>/didcomm.
	DIDCommEndpoint string `json:"didcomm_endpoint,omitempty"`

	// Label is the invitation label (the verifier name wallets show) for
	// requests that do not bring their own. Default: the host of
	// public_url (wallets expect every invitation to have a label).
	Label string `json:"label,omitempty"`

	// Cluster makes every record transition (presentation received,
	// accept) also take a storage lock, so that Caddy instances sharing
	// one storage never both accept a record. Within one instance an
	// in-process lock already does; leave this off on a single machine,
	// where the storage lock would only add writes.
	Cluster bool `json:"cluster,omitempty"`

	// AllowPrivateEndpoints lets the verifier send acks and problem
	// reports to prover endpoints on loopback, private (RFC 1918, ULA),
	// link-local, CGNAT and other non-public addresses. Off by default:
	// the endpoint comes from the prover's message, so without this guard
	// anyone holding an invitation could make the verifier POST into the
	// operator's network. Turn it on only for wallets and mediators on
	// your own network (tests, a private deployment).
	AllowPrivateEndpoints bool `json:"allow_private_endpoints,omitempty"`

	// AnonCredsRegistry turns on the cryptographic verification of indy
	// (AnonCreds) presentations and says where the verifier finds schemas
	// and credential definitions (files, the org's agent, an HTTP
	// resolver) and what it does with revocation it cannot check. An id no
	// source knows fails the presentation with "unknown credential
	// definition". Without the block, indy presentations are checked
	// structurally only and isVerified stays unset.
	AnonCredsRegistry *registry.Config `json:"anoncreds_registry,omitempty"`

	// RecordRetention is how long done and abandoned records (with their
	// per-record keys) are kept before the sweeper deletes them. Default:
	// kept until deleted otherwise.
	RecordRetention caddy.Duration `json:"record_retention,omitempty"`

	// InvitationTTL is how long an invitation waits for its presentation.
	// After it, a presentation is refused with a problem report and the
	// record is abandoned (the sweeper also abandons records nobody
	// answered). Default: no limit.
	InvitationTTL caddy.Duration `json:"invitation_ttl,omitempty"`

	// StorageRaw is the Caddy storage module holding records and keys.
	// Default: Caddy's global storage.
	StorageRaw json.RawMessage `json:"storage,omitempty" caddy:"namespace=caddy.storage inline_key=module"`

	// KeyEncryptionKey encrypts the verifier's private keys (org keys and
	// per-record keys) at rest with XChaCha20-Poly1305: 32 random bytes as
	// base64 or hex, given as {env.NAME} or {file./path} so that it stays
	// out of Caddy's config. Keys stored in plaintext earlier stay
	// readable and are encrypted as they are used.
	KeyEncryptionKey string `json:"key_encryption_key,omitempty"`

	// PreviousKeyEncryptionKeys still decrypt keys after a rotation (the
	// new key in key_encryption_key encrypts).
	PreviousKeyEncryptionKeys []string `json:"previous_key_encryption_keys,omitempty"`

	// Options configure the cryptographic verification of W3C
	// presentations (presentation exchange): trusted_issuers,
	// jsonld_contexts, did_resolver, require_domain, holder_binding,
	// status_unknown, clock_skew, max_credentials. Embedded: in JSON they
	// sit beside the fields above.
	w3c.Options

	svc     *proofs.Service
	agent   *proofs.Agent
	logger  *zap.Logger
	acksKey string // this config's hold on the pooled ack deliverer

	// bodyTimeout and budget override the body limits (tests).
	bodyTimeout time.Duration
	budget      *bodyread.Budget
}

// Interface guards.
var (
	_ caddy.Module           = (*Local)(nil)
	_ caddy.Provisioner      = (*Local)(nil)
	_ caddy.Validator        = (*Local)(nil)
	_ caddy.CleanerUpper     = (*Local)(nil)
	_ caddyfile.Unmarshaler  = (*Local)(nil)
	_ backend.Backend        = (*Local)(nil)
	_ backend.ShortURLKeeper = (*Local)(nil)
)

// CaddyModule returns the Caddy module information.
func (Local) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proofgate.backends.local",
		New: func() caddy.Module { return new(Local) },
	}
}

// Provision resolves placeholders, fills defaults, opens the storage and
// sets up the verifier.
func (l *Local) Provision(ctx caddy.Context) error {
	repl := caddy.NewReplacer()
	l.PublicURL = repl.ReplaceKnown(l.PublicURL, "")
	l.DIDCommEndpoint = repl.ReplaceKnown(l.DIDCommEndpoint, "")
	l.Label = repl.ReplaceKnown(l.Label, "")
	l.JSONLDContexts = repl.ReplaceKnown(l.JSONLDContexts, "")
	l.DIDResolver = repl.ReplaceKnown(l.DIDResolver, "")
	if err := l.check(); err != nil {
		return err
	}
	if l.DIDCommEndpoint == "" {
		l.DIDCommEndpoint = defaultEndpoint(l.PublicURL)
	}

	var storage certmagic.Storage
	if l.StorageRaw != nil {
		mod, err := ctx.LoadModule(l, "StorageRaw")
		if err != nil {
			return fmt.Errorf("loading storage module: %v", err)
		}
		storage, err = mod.(caddy.StorageConverter).CertMagicStorage()
		if err != nil {
			return fmt.Errorf("creating storage: %v", err)
		}
	} else {
		storage = ctx.Storage()
	}

	verifiers, err := l.verifiers(ctx.Logger())
	if err != nil {
		return err
	}
	label := l.Label
	if label == "" {
		u, _ := url.Parse(l.PublicURL) // checked
		label = u.Hostname()
	}
	sealer, err := l.sealer(ctx.Logger())
	if err != nil {
		return err
	}
	svc, err := proofs.New(storage, proofs.Config{
		PublicURL:    l.PublicURL,
		Endpoint:     l.DIDCommEndpoint,
		Policy:       l.policyID(),
		Label:        label,
		ClusterLocks: l.Cluster,
		Sealer:       sealer,
		Logger:       ctx.Logger(),
		Verifiers:    verifiers,
		// The sweeper (record_retention, invitation_ttl): lifecycle.go.
		RecordRetention: time.Duration(l.RecordRetention),
		InvitationTTL:   time.Duration(l.InvitationTTL),
	})
	if err != nil {
		return err
	}
	l.svc = svc
	l.logger = ctx.Logger()
	acks, err := l.acquireAcks(storage)
	if err != nil {
		return err
	}
	l.agent = proofs.NewAgent(svc, proofs.AgentConfig{AllowPrivateEndpoints: l.AllowPrivateEndpoints, Acks: acks, Logger: l.logger})
	return nil
}

// Validate checks the options.
func (l *Local) Validate() error {
	return l.check()
}

func (l *Local) check() error {
	if l.PublicURL == "" {
		return fmt.Errorf("public_url is required")
	}
	if err := checkURL(l.PublicURL, "http", "https"); err != nil {
		return fmt.Errorf("public_url: %v", err)
	}
	if l.DIDCommEndpoint != "" {
		if err := checkURL(l.DIDCommEndpoint, "http", "https", "ws", "wss"); err != nil {
			return fmt.Errorf("didcomm_endpoint: %v", err)
		}
	}
	if len(l.Label) > maxLabel {
		return fmt.Errorf("label: longer than %d bytes", maxLabel)
	}
	if l.AnonCredsRegistry != nil {
		if err := l.AnonCredsRegistry.Validate(); err != nil {
			return err
		}
	}
	if l.RecordRetention < 0 || (l.RecordRetention > 0 && time.Duration(l.RecordRetention) < time.Minute) {
		return fmt.Errorf("record_retention: must be at least 1m")
	}
	if l.InvitationTTL < 0 || (l.InvitationTTL > 0 && time.Duration(l.InvitationTTL) < time.Minute) {
		return fmt.Errorf("invitation_ttl: must be at least 1m")
	}
	return l.Options.Validate()
}

// checkURL requires an absolute URL with one of schemes, a host, and no
// credentials or fragment (which would not survive into a wallet's request).
// Its errors name the URL redacted: it may have come from {env.*}.
func checkURL(raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error quotes the whole string.
		return fmt.Errorf("not a URL")
	}
	name := redact.URL(u)
	ok := false
	for _, s := range schemes {
		ok = ok || u.Scheme == s
	}
	switch {
	case !ok:
		return fmt.Errorf("%q: scheme must be %s", name, strings.Join(schemes, " or "))
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%q has no host", name)
	case u.User != nil:
		return fmt.Errorf("%q must not contain credentials", name)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("%q must not have a fragment", name)
	}
	return nil
}

// defaultEndpoint is <public_url>/didcomm, without public_url's query.
func defaultEndpoint(publicURL string) string {
	u, _ := url.Parse(publicURL) // checked
	u.RawQuery, u.ForceQuery, u.Fragment = "", false, ""
	u.Path = strings.TrimRight(u.Path, "/") + "/didcomm"
	if u.RawPath != "" { // keep escapes such as %2F
		u.RawPath = strings.TrimRight(u.RawPath, "/") + "/didcomm"
	}
	return u.String()
}

// SendOutOfBandRequest implements backend.Backend.
func (l *Local) SendOutOfBandRequest(ctx context.Context, org backend.Org, req backend.OOBRequest) (backend.OOBResult, error) {
	return l.svc.Create(ctx, org, req)
}

// AcceptPresentation implements backend.Backend: the record moves from
// presentation-received to done, and its ack is sent to the prover (best
// effort; metadata "ack" on the returned record says how it went).
func (l *Local) AcceptPresentation(ctx context.Context, org backend.Org, proofRecordID string) (backend.ProofRecord, error) {
	return l.agent.Accept(ctx, org, proofRecordID)
}

// RecordOrg implements backend.Backend.
func (l *Local) RecordOrg(ctx context.Context, proofRecordID string) (string, error) {
	return l.svc.RecordOrg(ctx, proofRecordID)
}

// LoadRecord returns a proof record (backend.ErrNotFound if unknown).
func (l *Local) LoadRecord(ctx context.Context, proofRecordID string) (backend.ProofRecord, error) {
	return l.svc.LoadRecord(ctx, proofRecordID)
}

// Invitation returns a record's invitation JSON and long ?oob= URL.
func (l *Local) Invitation(ctx context.Context, proofRecordID string) (json.RawMessage, string, error) {
	return l.svc.Invitation(ctx, proofRecordID)
}

// ResolveShortURL implements backend.ShortURLKeeper: a short URL the
// local verifier made lives in its record.
func (l *Local) ResolveShortURL(ctx context.Context, id string) (backend.ShortURL, error) {
	return l.svc.ResolveShortURL(ctx, id)
}

// Service is the verifier behind the module, for the DIDComm endpoint.
func (l *Local) Service() *proofs.Service { return l.svc }
