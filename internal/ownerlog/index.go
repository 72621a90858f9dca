package ownerlog

import (
	"sync"
	"sync/atomic"
	"time"
)

// index maps every remembered record id to its org, in memory. Record ids
// are almost always canonical UUIDs (credo-controller and ACA-Py make them
// so), kept as 16 bytes; any other id is kept as a string. An org, with
// the tenant the record was made on, is kept once, as a number, beside the
// record's creation time in seconds: about 55 bytes per record in all, so
// a million records cost some 55 MiB.
//
// With a retention set, a record created longer ago than the retention is
// not found (whether or not expire has removed it yet) and is not added.
type index struct {
	// retention in seconds; 0 keeps every record.
	retention atomic.Int64

	mu    sync.RWMutex
	uuids map[[16]byte]owner
	other map[string]owner
	// gone holds forgotten ids with their tombstones' times, so that an
	// entry read after its tombstone (documents are read in any order)
	// stays forgotten. Forgetting only undoes a create whose request
	// failed, so it grows slowly; with a retention, expire drops the ids
	// past tombstoneCutoff.
	gone map[string]uint32
	// claimed holds the ids of creates whose owners are being written
	// (claim): a second create of one id is refused before either is
	// durable.
	claimed map[string]struct{}
	// orgs, tenants, agents and requestTypes are the owners' (org,
	// tenant, agent, request type) tuples, numbered in orgIDs: a record
	// must be asked of the agent and tenant it was made on, even once its
	// org is routed elsewhere. A request type doubles the tuples at most.
	orgs         []string
	tenants      []string
	agents       []string
	requestTypes []string
	orgIDs       map[Owner]uint32
}

// owner is an org's number and the record's creation time (Unix seconds;
// 0 when unknown: such a record never expires).
type owner struct {
	org, created uint32
}

func newIndex() *index {
	return &index{
		uuids:   make(map[[16]byte]owner),
		other:   make(map[string]owner),
		gone:    make(map[string]uint32),
		claimed: make(map[string]struct{}),
		orgIDs:  make(map[Owner]uint32),
	}
}

// cutoff returns the creation time (Unix seconds) before which records
// have expired at now: 0 when every record is kept.
func (x *index) cutoff(now time.Time) uint32 {
	r := x.retention.Load()
	if r <= 0 {
		return 0
	}
	return unixSeconds(now.Unix() - r)
}

// cutoffNow is cutoff at the present time, reading the clock only when a
// retention is set (every lookup and commit asks).
func (x *index) cutoffNow() uint32 {
	if x.retention.Load() <= 0 {
		return 0
	}
	return x.cutoff(time.Now())
}

// expired reports whether o was created before cutoff.
func (o owner) expired(cutoff uint32) bool { return o.created != 0 && o.created < cutoff }

// get returns the org of id.
func (x *index) get(id string) (string, bool) {
	o, ok := x.getOwner(id)
	return o.OrgID, ok
}

// getOwner returns the org of id, the org's tenant and the agent it was
// created on.
func (x *index) getOwner(id string) (Owner, bool) {
	cutoff := x.cutoffNow()
	x.mu.RLock()
	defer x.mu.RUnlock()
	var o owner
	var ok bool
	if u, isUUID := parseUUID(id); isUUID {
		o, ok = x.uuids[u]
	} else {
		o, ok = x.other[id]
	}
	if !ok || o.expired(cutoff) {
		return Owner{}, false
	}
	return Owner{OrgID: x.orgs[o.org], Tenant: x.tenants[o.org], Agent: x.agents[o.org], RequestType: x.requestTypes[o.org]}, true
}

// add remembers the entries and applies the tombstones of one document.
// Entries already expired are left out, and so are tombstones past
// tombstoneCutoff: every document that could hold their entries is gone.
func (x *index) add(entries []Entry, forgotten []tombstone) {
	cutoff := x.cutoffNow()
	dropBefore := x.tombstoneCutoff(time.Now())
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, t := range forgotten {
		x.remove(t.id)
		if t.at < dropBefore {
			continue
		}
		if at, ok := x.gone[t.id]; !ok || t.at > at {
			x.gone[t.id] = t.at
		}
	}
	for i := range entries {
		if _, gone := x.gone[entries[i].ID]; gone {
			continue
		}
		created := createdSeconds(entries[i].CreatedAt)
		if (owner{created: created}).expired(cutoff) {
			continue
		}
		x.put(entries[i].ID, entries[i].owner(), created)
	}
}

// claim reserves id for a create and reports whether it could: not when
// id has an owner (expired or not: it was some org's record), was
// forgotten (a create undone, or a record deleted), or is claimed by a
// create in flight. A create only ever adds an owner; the id an agent
// answers with is not trusted to be new. The claim lasts until release.
func (x *index) claim(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.has(id) {
		return false
	}
	if _, gone := x.gone[id]; gone {
		return false
	}
	if _, claimed := x.claimed[id]; claimed {
		return false
	}
	x.claimed[id] = struct{}{}
	return true
}

// known reports whether claim would refuse id.
func (x *index) known(id string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, gone := x.gone[id]
	_, claimed := x.claimed[id]
	return gone || claimed || x.has(id)
}

// release ends the claims of entries, written (add has put them) or not.
func (x *index) release(entries []Entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range entries {
		delete(x.claimed, entries[i].ID)
	}
}

// has reports whether id has an owner in memory, expired or not; the
// caller holds mu.
func (x *index) has(id string) bool {
	var ok bool
	if u, isUUID := parseUUID(id); isUUID {
		_, ok = x.uuids[u]
	} else {
		_, ok = x.other[id]
	}
	return ok
}

// len returns how many records are held.
func (x *index) len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.uuids) + len(x.other)
}

// put remembers one id; the caller holds mu. An id already held keeps
// its owner unless o was created earlier: instances sharing a storage
// each claim only against what they have read, so two of them may write
// owners of one id (an agent answering two creates with one record), and
// every reader, whatever the order it reads them in, keeps the first
// create's.
func (x *index) put(id string, who Owner, created uint32) {
	n, ok := x.orgIDs[who]
	if !ok {
		n = uint32(len(x.orgs))
		x.orgs = append(x.orgs, who.OrgID)
		x.tenants = append(x.tenants, who.Tenant)
		x.agents = append(x.agents, who.Agent)
		x.requestTypes = append(x.requestTypes, who.RequestType)
		x.orgIDs[who] = n
	}
	o := owner{org: n, created: created}
	if u, isUUID := parseUUID(id); isUUID {
		if held, ok := x.uuids[u]; !ok || o.before(held) {
			x.uuids[u] = o
		}
	} else {
		if held, ok := x.other[id]; !ok || o.before(held) {
			x.other[id] = o
		}
	}
}

// before reports whether o, another org's owner of held's id, was created
// before it; an unknown time (0) is never before nor after.
func (o owner) before(held owner) bool {
	return o.org != held.org && o.created != 0 && held.created != 0 && o.created < held.created
}

// expireChunk is how many expired records expire removes per hold of the
// write lock, so that lookups and commits wait little behind it.
const expireChunk = 4096

// expire removes the records created before the retention at now and
// returns how many. It finds them under the read lock and removes them a
// chunk at a time under the write lock.
func (x *index) expire(now time.Time) int {
	cutoff := x.cutoff(now)
	if cutoff == 0 {
		return 0
	}
	var uuids [][16]byte
	var other []string
	x.mu.RLock()
	for u, o := range x.uuids {
		if o.expired(cutoff) {
			uuids = append(uuids, u)
		}
	}
	for id, o := range x.other {
		if o.expired(cutoff) {
			other = append(other, id)
		}
	}
	x.mu.RUnlock()
	removeChunks(x, uuids, x.uuids, cutoff)
	removeChunks(x, other, x.other, cutoff)
	dropBefore := x.tombstoneCutoff(now)
	x.mu.Lock()
	for id, at := range x.gone {
		if at < dropBefore {
			delete(x.gone, id)
		}
	}
	x.mu.Unlock()
	return len(uuids) + len(other)
}

// tombstoneCutoff is the time (Unix seconds) before which a tombstone is
// dropped at now: 0 (none) without a retention. Its entry was created
// before it, and each document that may hold the entry is deleted by
// Expire once past the retention: a batch or an append file written
// before the tombstone (by appendQuiet after its name's time), or a
// segment a compaction wrote while the entry had not expired (within one
// retention of its creation). So by two retentions, appendQuiet and an
// expiry pass after it, none is left to bring the entry back, also where
// the instances' clocks differ by minutes. (Raising the retention past
// that keeps documents longer: an owner forgotten long before may then be
// found again. It states only what was true, the org that asked created
// the record; see the README.)
func (x *index) tombstoneCutoff(now time.Time) uint32 {
	r := x.retention.Load()
	if r <= 0 {
		return 0
	}
	margin := int64((appendQuiet + 2*expireEvery) / time.Second)
	return unixSeconds(now.Unix() - 2*r - margin)
}

// removeChunks deletes keys from m, expireChunk at a time under x's write
// lock, each only if it is still there and expired (it may have been
// forgotten meanwhile).
func removeChunks[K comparable](x *index, keys []K, m map[K]owner, cutoff uint32) {
	for len(keys) > 0 {
		n := min(len(keys), expireChunk)
		x.mu.Lock()
		for _, k := range keys[:n] {
			if o, ok := m[k]; ok && o.expired(cutoff) {
				delete(m, k)
			}
		}
		x.mu.Unlock()
		keys = keys[n:]
	}
}

// createdSeconds reads an entry's creation time (backend.TimeFormat, or
// any RFC 3339 time) as Unix seconds; 0 when missing or unreadable.
func createdSeconds(s string) uint32 {
	if s == "" {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return unixSeconds(t.Unix())
}

// unixSeconds clamps a Unix time into an owner's creation field (1 at
// least, so that a known time is never taken for unknown).
func unixSeconds(s int64) uint32 {
	return uint32(max(1, min(s, 1<<32-1)))
}

// remove forgets one id; the caller holds mu.
func (x *index) remove(id string) {
	if u, isUUID := parseUUID(id); isUUID {
		delete(x.uuids, u)
	} else {
		delete(x.other, id)
	}
}

// adopt remembers e's org learnt elsewhere (a per-record document written
// before the log existed), unless it was forgotten or has expired, and
// reports whether it did.
func (x *index) adopt(e Entry) bool {
	created := createdSeconds(e.CreatedAt)
	if (owner{created: created}).expired(x.cutoffNow()) {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, gone := x.gone[e.ID]; gone {
		return false
	}
	x.put(e.ID, e.owner(), created)
	return true
}

// parseUUID reads id as a UUID in canonical form only (36 characters,
// lower-case hex, dashes at 8, 13, 18 and 23), so that two spellings of
// one UUID never share an entry.
func parseUUID(id string) ([16]byte, bool) {
	var u [16]byte
	if len(id) != 36 {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		switch i {
		case 8, 13, 18, 23:
			if id[i] != '-' {
				return u, false
			}
			i++
			continue
		}
		hi, ok1 := hexValue(id[i])
		lo, ok2 := hexValue(id[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, true
}

func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
