package agent

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/groupcommit"
	"github.com/proofgate/proofgate/internal/ownerlog"
	"github.com/proofgate/proofgate/internal/store"
)

// OwnershipNamespace is where record → org documents live, under
// proofgate/upstream-records/: the log (log/, package ownerlog) and, read
// only, the per-record documents <record id>.json of earlier versions. All
// upstream backends share it (record ids are UUIDs), so a record stays
// attributed when an org is moved to another backend or an agent's url
// changes.
const OwnershipNamespace = "upstream-records"

// ownerLogDir is the log's directory (a storage key prefix).
var ownerLogDir = path.Join(store.Prefix, OwnershipNamespace, "log")

// Ownership remembers which org created each proof record through an
// upstream agent, for authorizing 4.2. The owners live in a group-committed
// log with every owner in memory, so that remembering costs a share of one
// durable write and authorizing costs no storage read.
type Ownership struct {
	log *ownerlog.Log
	// legacy reads the per-record documents earlier versions wrote.
	legacy *store.Store
	agent  string
	// retention is what the log was acquired with (0: keep every owner).
	retention time.Duration
}

// Owner is a per-record document of earlier versions.
type Owner struct {
	OrgID     string `json:"orgId"`
	Tenant    string `json:"tenant,omitempty"`
	Agent     string `json:"agent"`
	ThreadID  string `json:"threadId,omitempty"`
	CreatedAt string `json:"createdAt"`
}

// NewOwnership returns Ownership over storage; agent identifies the backend
// in the entries it writes (e.g. "credo http://127.0.0.1:3000"); owners
// are kept for retention after their record's creation (0: forever; every
// backend on the storage shares the log, which keeps owners as long as
// the longest retention asks). Close releases it.
func NewOwnership(storage certmagic.Storage, agent string, retention time.Duration, logger *zap.Logger) *Ownership {
	return &Ownership{
		log:       ownerlog.Acquire(storage, ownerLogDir, logger, retention),
		legacy:    store.New(storage, OwnershipNamespace),
		agent:     agent,
		retention: retention,
	}
}

// Close releases the log (it stays open while another config uses it).
func (o *Ownership) Close() {
	ownerlog.Release(o.log, o.retention)
}

// ErrKnownRecord is Start's and Remember's refusal of a record proofgate
// already knows: remembered for an org (another, or the same one), or
// forgotten. The agent answered a create with a record that create did
// not make (a buggy or compromised agent, or a proxy replaying an
// answer): the backend answers it as a bad agent answer, and its cleanup
// leaves that record alone.
var ErrKnownRecord = errors.New("the agent answered a create with a proof record proofgate already knows")

// Remember records that org created the proof record id, a request of
// requestType (backend.RequestIndy or RequestPresentationExchange), or
// refuses a known id (ErrKnownRecord). It returns once that is durable (one batch
// write shared with concurrent creates). A storage failure is
// ErrUnavailable: without it the record could not be authorized later.
func (o *Ownership) Remember(ctx context.Context, id string, org backend.Org, threadID string, requestType backend.RequestType) error {
	r, err := o.Start(id, org, threadID, requestType)
	if err != nil {
		return err
	}
	return r.Wait()
}

// Remembering is an owner being made durable (Start).
type Remembering struct{ ticket groupcommit.Ticket }

// Wait returns once the owner is durable, or ErrUnavailable. It must be
// called exactly once.
func (r Remembering) Wait() error {
	if err := r.ticket.Wait(); err != nil {
		return errors.Join(backend.ErrUnavailable, err)
	}
	return nil
}

// Start begins what Remember does and returns at once, so that a create
// can make its next agent call while the owner's batch is written; the
// create must Wait before it answers. A known id is refused at once
// (ErrKnownRecord), with nothing to wait for.
func (o *Ownership) Start(id string, org backend.Org, threadID string, requestType backend.RequestType) (Remembering, error) {
	t, err := o.log.Start(ownerlog.Entry{
		ID: id, OrgID: org.ID, Tenant: org.Tenant, Agent: o.agent, ThreadID: threadID,
		CreatedAt: time.Now().UTC().Format(backend.TimeFormat), RequestType: string(requestType),
	})
	if errors.Is(err, ownerlog.ErrTaken) {
		return Remembering{}, ErrKnownRecord
	}
	if err != nil {
		return Remembering{}, errors.Join(backend.ErrUnavailable, err)
	}
	return Remembering{ticket: t}, nil
}

// Known reports whether proofgate knows record id (as Start would refuse
// it), from memory: a create whose answer is unusable but names a known
// id must not delete it, since it is not the create's.
func (o *Ownership) Known(id string) bool { return o.log.Known(id) }

// RequestTypeOf returns the type of record id's request, from memory: ""
// when proofgate does not know it (the record was made elsewhere, or
// remembered by an earlier version).
func (o *Ownership) RequestTypeOf(id string) backend.RequestType {
	who, _ := o.log.Owner(id)
	return backend.RequestType(who.RequestType)
}

// lookup returns the org that created record id, with the tenant of the
// org it was created on, or backend.ErrNotFound when it was not created
// through proofgate. Memory answers; a miss reads an earlier version's
// per-record document, then the log's documents written since it was last
// read (by another instance sharing the storage).
func (o *Ownership) lookup(ctx context.Context, id string) (backend.Owner, error) {
	if who, ok := o.log.Owner(id); ok {
		return owner(who), nil
	}
	var doc Owner
	err := o.legacy.Get(ctx, id, &doc)
	if err == nil {
		e := ownerlog.Entry{ID: id, OrgID: doc.OrgID, Tenant: doc.Tenant, Agent: doc.Agent, CreatedAt: doc.CreatedAt}
		if !o.log.Adopt(e) {
			return backend.Owner{}, backend.ErrNotFound // forgotten, or past owner_retention
		}
		return owner(ownerlog.Owner{OrgID: e.OrgID, Tenant: e.Tenant, Agent: e.Agent}), nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return backend.Owner{}, errors.Join(backend.ErrUnavailable, err)
	}
	if err := o.log.Refresh(ctx); err != nil {
		return backend.Owner{}, errors.Join(backend.ErrUnavailable, err)
	}
	if who, ok := o.log.Owner(id); ok {
		return owner(who), nil
	}
	return backend.Owner{}, backend.ErrNotFound
}

func owner(who ownerlog.Owner) backend.Owner {
	return backend.Owner{Org: backend.Org{ID: who.OrgID, Tenant: who.Tenant}, Agent: who.Agent, RequestType: backend.RequestType(who.RequestType)}
}

// Forget drops what is remembered of record id (its request was undone).
func (o *Ownership) Forget(ctx context.Context, id string) error {
	if err := o.log.Forget(id); err != nil {
		return errors.Join(backend.ErrUnavailable, err)
	}
	return nil
}

// OrgOf returns the org that created record id through proofgate
// (backend.Backend's RecordOrg for every upstream backend).
func (o *Ownership) OrgOf(ctx context.Context, id string) (string, error) {
	who, err := o.lookup(ctx, id)
	return who.ID, err
}

// OwnerOf returns the org that created record id through proofgate, the
// tenant of the org and the agent it was created on
// (backend.RecordOwnerFinder's RecordOwner for every upstream backend):
// where its record lives, wherever the org is routed now.
func (o *Ownership) OwnerOf(ctx context.Context, id string) (backend.Owner, error) {
	return o.lookup(ctx, id)
}

// OwnedBy reports whether record id belongs to org: it was created through
// proofgate for org, or, when proofgate never saw it, agentHolds (asked of
// org's agent or tenant) says the agent has it. Only tenant or agent
// isolation makes that second answer an ownership proof; the handler asks
// only where the org has its agent or tenant to itself.
func (o *Ownership) OwnedBy(ctx context.Context, org backend.Org, id string, agentHolds func() (bool, error)) (bool, error) {
	who, err := o.lookup(ctx, id)
	if err == nil {
		return who.ID == org.ID, nil
	}
	if !errors.Is(err, backend.ErrNotFound) {
		return false, err
	}
	return agentHolds()
}
