// Package registry finds AnonCreds schemas and credential definitions for
// the verifier: several sources tried in order (operator files, the org's
// own agent, any HTTP resolver), results cached by id with a TTL.
package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/proofgate/proofgate/internal/anoncreds"
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
	// maxEntries bounds the cache; when full, expired entries go first,
	// then the whole cache is dropped (lookups are cheap to redo).
	maxEntries = 4096
	// maxID bounds an id taken from a presentation.
	maxID = 512
)

// Registry is an anoncreds.Resolver over sources, with a cache.
type Registry struct {
	sources []Source
	ttl     time.Duration
	now     func() time.Time

	mu    sync.Mutex
	cache map[cacheKey]entry
}

type cacheKey struct {
	kind Kind
	id   string
}

type entry struct {
	value   any // *anoncreds.Schema or *anoncreds.CredentialDefinition; nil: unknown
	expires time.Time
}

// New returns a registry asking sources in order and caching for ttl
// (DefaultTTL when zero).
func New(ttl time.Duration, sources ...Source) *Registry {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Registry{sources: sources, ttl: ttl, now: time.Now, cache: map[cacheKey]entry{}}
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
	key := cacheKey{kind, id}
	now := r.now()
	r.mu.Lock()
	e, ok := r.cache[key]
	r.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.value == nil {
			return nil, fmt.Errorf("%s %s: %w", kind, id, anoncreds.ErrUnknown)
		}
		return e.value, nil
	}

	var failures []error
	for _, src := range r.sources {
		doc, err := src.Fetch(ctx, kind, id)
		if errors.Is(err, anoncreds.ErrUnknown) {
			continue
		}
		if err != nil {
			failures = append(failures, fmt.Errorf("%s: %v", src.Name(), err))
			continue
		}
		v, err := parse(doc)
		if err != nil {
			failures = append(failures, fmt.Errorf("%s: %v", src.Name(), err))
			continue
		}
		r.store(key, entry{v, now.Add(r.ttl)})
		return v, nil
	}
	if len(failures) > 0 {
		// Not cached: a source that is down may answer next time.
		return nil, fmt.Errorf("%s %s: %w", kind, id, errors.Join(failures...))
	}
	r.store(key, entry{nil, now.Add(min(negativeTTL, r.ttl))})
	return nil, fmt.Errorf("%s %s: %w", kind, id, anoncreds.ErrUnknown)
}

func (r *Registry) store(key cacheKey, e entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.cache) >= maxEntries {
		now := r.now()
		for k, old := range r.cache {
			if !now.Before(old.expires) {
				delete(r.cache, k)
			}
		}
		if len(r.cache) >= maxEntries {
			r.cache = map[cacheKey]entry{}
		}
	}
	r.cache[key] = e
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
