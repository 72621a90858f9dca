// Package status checks the credentialStatus of W3C credentials against
// status lists: StatusList2021Entry (W3C CCG Status List 2021) and
// BitstringStatusListEntry (W3C Bitstring Status List v1.0). The list
// credential is fetched over HTTPS through the outbound guard, with a size
// limit, a timeout and a bounded TTL cache; its own proof must verify and
// its issuer must be the credential's; then the bit at statusListIndex is
// read. A list that cannot be fetched or verified gives Unknown, never OK.
package status

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/proofgate/proofgate/internal/netguard"
	"github.com/proofgate/proofgate/internal/ttlcache"
)

// Outcomes.
const (
	OK      = "ok"
	Revoked = "revoked"
	Unknown = "unknown"
	// Malformed is a credentialStatus that cannot be read: an entry
	// without a string type, or of a supported type with a member missing
	// or of the wrong kind. Not Unknown: status_unknown accept is for a
	// list that cannot be had, and a signed entry respelled (as "@type",
	// or its list as {"id": …}, which an RDF proof allows) must not pass
	// for one.
	Malformed = "malformed"
)

// Entry types.
const (
	StatusList2021Entry      = "StatusList2021Entry"
	BitstringStatusListEntry = "BitstringStatusListEntry"
)

// MaxEntries caps the status entries of one credential.
const MaxEntries = 4

// ListVerifier verifies a fetched status list credential (JSON-LD object
// or compact JWT) and returns its issuer, its credentialSubject and when
// it stops being valid (zero: no end).
type ListVerifier interface {
	VerifyStatusList(ctx context.Context, body []byte) (issuer string, subject map[string]any, validUntil time.Time, err error)
}

// Options configure a Checker; zero values take defaults.
type Options struct {
	// AllowPrivate lets lists be fetched from private addresses.
	AllowPrivate bool
	// Timeout bounds one fetch (default 5s).
	Timeout time.Duration
	// MaxSize caps a fetched list credential (default 1 MiB) and
	// MaxBits the decompressed bitstring (default 2^25 bits, 4 MiB).
	MaxSize int64
	MaxBits int
	// CacheTTL keeps verified lists (default 5 min); failures are kept
	// for a tenth of it. CacheSize bounds them (default 200), and
	// CacheBytes their bitstrings together (default 32 MiB): a list of
	// a few KiB of gzip can inflate to MaxBits, and 200 such lists, which
	// anyone who self-issues credentials can have fetched, would hold
	// 800 MiB.
	CacheTTL   time.Duration
	CacheSize  int
	CacheBytes int64
	// Client replaces the guarded client (tests with a TLS test server).
	Client *http.Client
	// Now is the clock (tests).
	Now func() time.Time
}

// Checker checks status entries. Safe for concurrent use.
type Checker struct {
	o      Options
	client *http.Client
	lists  ListVerifier
	cache  *ttlcache.Cache[*list]
}

// New returns a Checker whose list credentials are verified by lv.
func New(o Options, lv ListVerifier) *Checker {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 1 << 20
	}
	if o.MaxBits <= 0 {
		o.MaxBits = 1 << 25
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = 5 * time.Minute
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 200
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 32 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	client := o.Client
	if client == nil {
		client = netguard.Client(netguard.Options{AllowPrivate: o.AllowPrivate, Timeout: o.Timeout})
	}
	cache := ttlcache.New[*list](o.CacheSize, o.CacheTTL, o.CacheTTL/10).
		WithBudget(o.CacheBytes, func(l *list) int64 { return int64(len(l.bits)) })
	c := &Checker{o: o, client: client, lists: lv, cache: cache}
	return c
}

// Result is the outcome of one credential's status.
type Result struct {
	// Outcome is OK, Revoked or Unknown.
	Outcome string
	// Detail is a short, safe reason for Unknown or Revoked.
	Detail string
}

// entry is one parsed credentialStatus.
type entry struct {
	// unsupported: a type (a string) this checker does not know; its
	// status is unknown, and the other entries are still checked.
	unsupported bool
	typ         string
	purpose     string
	index       int
	listURL     string
	size        int
}

// ErrEntry means a credentialStatus we cannot read.
var ErrEntry = errors.New("unreadable credentialStatus")

// parseEntries reads credentialStatus (an object or an array of them).
func parseEntries(v any) ([]entry, error) {
	var objs []map[string]any
	switch s := v.(type) {
	case map[string]any:
		objs = []map[string]any{s}
	case []any:
		if len(s) > MaxEntries {
			return nil, fmt.Errorf("%w: more than %d entries", ErrEntry, MaxEntries)
		}
		for _, e := range s {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: an entry is not an object", ErrEntry)
			}
			objs = append(objs, m)
		}
	default:
		return nil, fmt.Errorf("%w: not an object", ErrEntry)
	}
	out := make([]entry, 0, len(objs))
	for _, m := range objs {
		e := entry{size: 1}
		typ, isString := m["type"].(string)
		if !isString {
			return nil, fmt.Errorf("%w: an entry without a string type", ErrEntry)
		}
		e.typ = typ
		if e.typ != StatusList2021Entry && e.typ != BitstringStatusListEntry {
			// Its status is unknown; a revoked entry beside it must still
			// count, so the rest are read and checked.
			e.unsupported = true
			out = append(out, e)
			continue
		}
		e.purpose, _ = m["statusPurpose"].(string)
		e.listURL, _ = m["statusListCredential"].(string)
		if e.purpose == "" || e.listURL == "" {
			return nil, fmt.Errorf("%w: statusPurpose and statusListCredential are required", ErrEntry)
		}
		idx, err := intField(m["statusListIndex"])
		if err != nil {
			return nil, fmt.Errorf("%w: statusListIndex: %v", ErrEntry, err)
		}
		e.index = idx
		if sz, ok := m["statusSize"]; ok {
			if e.size, err = intField(sz); err != nil {
				return nil, fmt.Errorf("%w: statusSize: %v", ErrEntry, err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// intField reads a non-negative integer given as a string (as the specs
// say) or a JSON number (as some issuers write it).
func intField(v any) (int, error) {
	switch n := v.(type) {
	case string:
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 {
			return 0, fmt.Errorf("%.20q is not a non-negative integer", n)
		}
		return i, nil
	case float64:
		if n < 0 || n != float64(int(n)) || n > 1<<40 {
			return 0, fmt.Errorf("%v is not a non-negative integer", n)
		}
		return int(n), nil
	}
	return 0, errors.New("missing")
}
