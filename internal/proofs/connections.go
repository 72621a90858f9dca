package proofs

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
)

// Connection is what the local verifier knows of a prover it talks to
// without a DIDComm connection protocol: the ~service a connectionless
// presentation brought (RFC 0056). Records point at it (connectionId), and
// acks and problem reports go to it. One connection per org and prover
// key, stored once at proofgate/connections/<id>.json; its id is derived
// from the two, so a returning prover finds its connection without an
// index. Only a presentation authcrypted with that key makes it, and
// updates it when the prover moved (a new mediator, a new endpoint):
// anyone holding an invitation of the org could otherwise name another
// prover's key and take its acks, by changing its connection or by making
// it first (an anoncrypted presentation racing the prover's own first
// one, say).
type Connection struct {
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	// TheirKey is the prover's recipient key that names the connection.
	TheirKey      string   `json:"theirKey"`
	RecipientKeys []string `json:"recipientKeys"`
	RoutingKeys   []string `json:"routingKeys"`
	Endpoint      string   `json:"serviceEndpoint"`
	CreatedAt     string   `json:"createdAt"`
	UpdatedAt     string   `json:"updatedAt"`
}

// connectionNamespace scopes the name-based connection ids.
var connectionNamespace = uuid.MustParse("9a3c2b8e-1f47-4d3a-8a51-2c6e0f4b7d19")

// ConnectionID is the id of org's connection to the prover with recipient
// key theirKey.
func ConnectionID(orgID, theirKey string) string {
	return uuid.NewSHA1(connectionNamespace, []byte(orgID+"\n"+theirKey)).String()
}

// connect returns the id of org's connection to the prover of svc,
// creating or updating it; "" when svc names no key, or when sender (the
// authcrypt sender, "" for anoncrypt) is not its key and no connection of
// that key names the same service: then the record keeps to its own
// ~service, and the connection, if any, stays as its key's holder left it.
// Since only the holder writes, its writes need no lock: two of them
// racing are both its own word.
func (s *Service) connect(ctx context.Context, orgID string, svc *ServiceDecorator, sender string) (string, error) {
	if svc == nil || len(svc.RecipientKeys) == 0 {
		return "", nil
	}
	key := svc.RecipientKeys[0]
	id := ConnectionID(orgID, key)
	var c Connection
	err := s.connections.Get(ctx, id, &c)
	switch {
	case err == nil:
		if c.OrgID == orgID && c.Endpoint == svc.ServiceEndpoint &&
			slices.Equal(c.RecipientKeys, svc.RecipientKeys) && slices.Equal(c.RoutingKeys, svc.RoutingKeys) {
			return id, nil
		}
	case errors.Is(err, store.ErrNotFound):
		c = Connection{ID: id, OrgID: orgID, TheirKey: key, CreatedAt: s.cfg.Now().UTC().Format(backend.TimeFormat)}
	default:
		return "", err
	}
	if sender != key {
		return "", nil
	}
	c.OrgID, c.TheirKey = orgID, key
	c.RecipientKeys = slices.Clone(svc.RecipientKeys)
	c.RoutingKeys = append([]string{}, svc.RoutingKeys...)
	c.Endpoint = svc.ServiceEndpoint
	c.UpdatedAt = s.cfg.Now().UTC().Format(backend.TimeFormat)
	if err := s.connections.Put(ctx, id, c); err != nil {
		return "", err
	}
	return id, nil
}

// attachConnection sets d's connection from the prover's ~service, sent
// by sender (connect): called in the transition that records a
// presentation.
func (s *Service) attachConnection(ctx context.Context, d *Doc, svc *ServiceDecorator, sender string) error {
	id, err := s.connect(ctx, d.Record.OrgID, svc, sender)
	if err != nil {
		return err
	}
	if id != "" {
		d.Record.ConnectionID = id
	}
	return nil
}

// LoadConnection returns a connection of org, or backend.ErrNotFound.
func (s *Service) LoadConnection(ctx context.Context, orgID, id string) (Connection, error) {
	var c Connection
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return c, backend.ErrNotFound
	}
	if err := s.connections.Get(ctx, id, &c); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return c, backend.ErrNotFound
		}
		return c, err
	}
	if c.OrgID != orgID {
		return Connection{}, backend.ErrNotFound
	}
	return c, nil
}

// proverService is where messages to the prover of doc go: its
// connection, else the ~service its presentation carried (records from
// before connections), else nil (errNoService when sending).
func (a *Agent) proverService(ctx context.Context, doc *Doc) (*ServiceDecorator, error) {
	if doc.Record.ConnectionID != "" {
		c, err := a.svc.LoadConnection(ctx, doc.Record.OrgID, doc.Record.ConnectionID)
		if err == nil {
			return &ServiceDecorator{RecipientKeys: c.RecipientKeys, RoutingKeys: c.RoutingKeys, ServiceEndpoint: c.Endpoint}, nil
		}
		if !errors.Is(err, backend.ErrNotFound) {
			return nil, err
		}
	}
	if doc.TheirService == nil {
		return nil, errNoService
	}
	return doc.TheirService, nil
}
