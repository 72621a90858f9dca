package agent

import (
	"context"
	"errors"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/ttlcache"
)

// OwnershipNamespace is where record → org documents live:
// proofgate/upstream-records/<record id>.json. All upstream backends share
// it (record ids are UUIDs), so a record stays attributed when an org is
// moved to another backend or an agent's url changes.
const OwnershipNamespace = "upstream-records"

// Ownership remembers which org created each proof record through an
// upstream agent, for authorizing 4.2.
type Ownership struct {
	st    *store.Store
	agent string
	// cache keeps recently written or read owners, so that accepting a
	// record does not read its ownership document every time. Owners never
	// change once written (Forget only undoes a create whose request
	// failed, before any client learnt the record id), so an entry is
	// never stale; storage stays the truth, and a miss reads it.
	cache *ttlcache.Cache[Owner]
}

// ownerCacheSize bounds the owners kept in memory (a few MiB at most, so
// the cache never grows with the number of records); ownerCacheTTL only
// lets idle entries go, since owners never change.
const (
	ownerCacheSize = 16384
	ownerCacheTTL  = 24 * time.Hour
)

// Owner is one remembered record.
type Owner struct {
	OrgID     string `json:"orgId"`
	Tenant    string `json:"tenant,omitempty"`
	Agent     string `json:"agent"` // backend type and url, for operators
	ThreadID  string `json:"threadId,omitempty"`
	CreatedAt string `json:"createdAt"`
}

// NewOwnership returns Ownership over storage; agent identifies the backend
// in the documents it writes (e.g. "credo http://127.0.0.1:3000").
func NewOwnership(storage certmagic.Storage, agent string) *Ownership {
	return &Ownership{st: store.New(storage, OwnershipNamespace), agent: agent, cache: ttlcache.New[Owner](ownerCacheSize, ownerCacheTTL, 0)}
}

// Remember records that org created the proof record id. It is one durable
// write. A storage failure is ErrUnavailable: without it the record could
// not be authorized later.
func (o *Ownership) Remember(ctx context.Context, id string, org backend.Org, threadID string) error {
	doc := Owner{
		OrgID: org.ID, Tenant: org.Tenant, Agent: o.agent, ThreadID: threadID,
		CreatedAt: time.Now().UTC().Format(backend.TimeFormat),
	}
	if err := o.st.Put(ctx, id, doc); err != nil {
		return errors.Join(backend.ErrUnavailable, err)
	}
	o.cache.Put(id, doc)
	return nil
}

// Lookup returns the owner of record id, or backend.ErrNotFound when it was
// not created through proofgate (or before ownership was kept).
func (o *Ownership) Lookup(ctx context.Context, id string) (Owner, error) {
	if doc, ok := o.cache.Peek(id); ok {
		return doc, nil
	}
	var doc Owner
	err := o.st.Get(ctx, id, &doc)
	if errors.Is(err, store.ErrNotFound) {
		return doc, backend.ErrNotFound
	}
	if err != nil {
		return doc, errors.Join(backend.ErrUnavailable, err)
	}
	o.cache.Put(id, doc)
	return doc, nil
}

// Forget drops what is remembered of record id (its request was undone).
func (o *Ownership) Forget(ctx context.Context, id string) error {
	o.cache.Delete(id)
	if err := o.st.Delete(ctx, id); err != nil {
		return errors.Join(backend.ErrUnavailable, err)
	}
	return nil
}

// OrgOf returns the org that created record id through proofgate
// (backend.Backend's RecordOrg for every upstream backend).
func (o *Ownership) OrgOf(ctx context.Context, id string) (string, error) {
	owner, err := o.Lookup(ctx, id)
	if err != nil {
		return "", err
	}
	return owner.OrgID, nil
}

// OwnedBy reports whether record id belongs to org: it was created through
// proofgate for org, or, when proofgate never saw it, agentHolds (asked of
// org's agent or tenant) says the agent has it. Only tenant or agent
// isolation makes that second answer an ownership proof; the handler asks
// only where the org has its agent or tenant to itself.
func (o *Ownership) OwnedBy(ctx context.Context, org backend.Org, id string, agentHolds func() (bool, error)) (bool, error) {
	owner, err := o.Lookup(ctx, id)
	if err == nil {
		return owner.OrgID == org.ID, nil
	}
	if !errors.Is(err, backend.ErrNotFound) {
		return false, err
	}
	return agentHolds()
}
