// Package registry finds AnonCreds schemas and credential definitions for
// the verifier: several sources tried in order (operator files, the org's
// own agent, any HTTP resolver), results cached by id with a TTL.
package registry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/anoncreds"
	"github.com/proofgate/proofgate/internal/netguard"
	"github.com/proofgate/proofgate/internal/ttlcache"
	"go.uber.org/zap"
)

// Kind is what is looked up.
type Kind string

// The two kinds of documents.
const (
	KindSchema  Kind = "schema"
	KindCredDef Kind = "credential-definition"
)

// Source fetches one document by id. A source that does not know the id
// returns an error wrapping anoncreds.ErrUnknown; any other error means it
// could not answer (down, bad document), and the next source is asked.
type Source interface {
	Fetch(ctx context.Context, kind Kind, id string) ([]byte, error)
	// Name says which source it is, for messages and logs.
	Name() string
}

// Defaults of the cache.
const (
	DefaultTTL = 10 * time.Minute
	// negativeTTL keeps "no source knows this id" for a short while, so a
	// flood of presentations naming made-up ids does not become a flood of
	// lookups.
	negativeTTL = 30 * time.Second
	// maxEntries bounds the cache (least recently stored go first).
	maxEntries = 4096
	// cacheBudget bounds the documents the cache holds together, counted
	// by the size of what the source answered (about what their parse
	// holds: a credential definition is mostly its big numbers). The
	// ids come from presentations: without it, provers naming large
	// public definitions (up to maxDocument each) could fill
	// maxEntries of them, gigabytes.
	cacheBudget = 64 << 20
	// maxID bounds an id taken from a presentation.
	maxID = 512
)

// Registry is an anoncreds.Resolver over sources, with a cache
// (internal/ttlcache: bounded, one fetch per id at a time).
type Registry struct {
	sources []Source
	cache   *ttlcache.Cache[fetched]
	logger  *zap.Logger
}

// WithLogger makes the registry log why its sources could not answer: the
// error a lookup returns ends in the record's errorMessage, which the
// org's callers read, so it names no source, URL or address.
func (r *Registry) WithLogger(l *zap.Logger) *Registry {
	if l != nil {
		r.logger = l.Named("anoncreds_registry")
	}
	return r
}

// New returns a registry asking sources in order and caching for ttl
// (DefaultTTL when zero). A lookup that failed (no source knows the id, or
// none could answer) is remembered for at most 30s.
func New(ttl time.Duration, sources ...Source) *Registry {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	cache := ttlcache.New[fetched](maxEntries, ttl, min(negativeTTL, ttl)).
		WithBudget(cacheBudget, func(f fetched) int64 { return f.size })
	return &Registry{sources: sources, cache: cache, logger: zap.NewNop()}
}

// fetched is a parsed document (*anoncreds.Schema or
// *anoncreds.CredentialDefinition) and the size of the answer it was
// parsed from, its weight in the cache.
type fetched struct {
	doc  any
	size int64
}

var _ anoncreds.Resolver = (*Registry)(nil)

// Schema implements anoncreds.Resolver.
func (r *Registry) Schema(ctx context.Context, id string) (*anoncreds.Schema, error) {
	v, err := r.lookup(ctx, KindSchema, id, func(doc []byte) (any, error) { return anoncreds.ParseSchema(id, doc) })
	if err != nil {
		return nil, err
	}
	return v.(*anoncreds.Schema), nil
}

// CredentialDefinition implements anoncreds.Resolver.
func (r *Registry) CredentialDefinition(ctx context.Context, id string) (*anoncreds.CredentialDefinition, error) {
	v, err := r.lookup(ctx, KindCredDef, id, func(doc []byte) (any, error) { return anoncreds.ParseCredentialDefinition(id, doc) })
	if err != nil {
		return nil, err
	}
	return v.(*anoncreds.CredentialDefinition), nil
}

func (r *Registry) lookup(ctx context.Context, kind Kind, id string, parse func([]byte) (any, error)) (any, error) {
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("%s id: %v: %w", kind, err, anoncreds.ErrUnknown)
	}
	f, err := r.cache.Get(ctx, string(kind)+"\x00"+id, func(ctx context.Context) (fetched, error) {
		var failures []error
		var public []string // what the record may say of each: no source, URL or address
		for _, src := range r.sources {
			doc, err := src.Fetch(ctx, kind, id)
			if errors.Is(err, anoncreds.ErrUnknown) {
				continue
			}
			if err != nil {
				failures = append(failures, fmt.Errorf("%s: %v", src.Name(), err))
				public = append(public, publicReason(err))
				continue
			}
			v, err := parse(doc)
			if err != nil {
				failures = append(failures, fmt.Errorf("%s: %v", src.Name(), err))
				public = append(public, "unusable document")
				continue
			}
			return fetched{v, int64(len(doc))}, nil
		}
		if len(failures) > 0 {
			r.logger.Warn("no AnonCreds registry source could answer", zap.String("kind", string(kind)),
				zap.String("id", id), zap.Error(errors.Join(failures...)))
			return fetched{}, fmt.Errorf("%s %s: no source could answer (%s; the log says more)", kind, id, strings.Join(public, ", "))
		}
		return fetched{}, fmt.Errorf("%s %s: %w", kind, id, anoncreds.ErrUnknown)
	})
	return f.doc, err
}

// publicReason says what went wrong with a source's answer, for the
// record: the status of an answer, or the kind of network failure.
func publicReason(err error) string {
	var se *statusError
	if errors.As(err, &se) {
		return "HTTP " + strconv.Itoa(se.code)
	}
	return netguard.Category(err)
}

// checkID refuses ids no registry uses: empty, overlong, with control
// characters, or "." and ".." (which would move up the path of the
// operator's resolver URL).
func checkID(id string) error {
	if id == "" || len(id) > maxID {
		return fmt.Errorf("empty or longer than %d bytes", maxID)
	}
	if id == "." || id == ".." {
		return errors.New("a path step, not an id")
	}
	for _, c := range id {
		if c < 0x20 || c == 0x7f {
			return errors.New("control character")
		}
	}
	return nil
}
