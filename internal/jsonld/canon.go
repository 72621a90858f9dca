package jsonld

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// Canonicalizer turns JSON-LD documents into their RDFC-1.0 (URDNA2015)
// canonical N-Quads with json-gold, resolving contexts only through its
// Loader and never doing unbounded work.
type Canonicalizer struct {
	loader *Loader
	limits Limits
}

// NewCanonicalizer returns a Canonicalizer over loader with limits (zero
// fields take DefaultLimits).
func NewCanonicalizer(loader *Loader, limits Limits) *Canonicalizer {
	d := DefaultLimits
	if limits.MaxDepth > 0 {
		d.MaxDepth = limits.MaxDepth
	}
	if limits.MaxValues > 0 {
		d.MaxValues = limits.MaxValues
	}
	if limits.MaxQuads > 0 {
		d.MaxQuads = limits.MaxQuads
	}
	if limits.MaxBlankNodes > 0 {
		d.MaxBlankNodes = limits.MaxBlankNodes
	}
	if limits.MaxTwinBlankNodes > 0 {
		d.MaxTwinBlankNodes = limits.MaxTwinBlankNodes
	}
	if limits.Timeout > 0 {
		d.Timeout = limits.Timeout
	}
	return &Canonicalizer{loader: loader, limits: d}
}

// Loader returns the context loader.
func (c *Canonicalizer) Loader() *Loader { return c.loader }

// Limits returns the limits in force.
func (c *Canonicalizer) Limits() Limits { return c.limits }

// workers bounds the canonicalizations running at once in the process,
// across every Canonicalizer: a run that overruns its timeout cannot be
// stopped, so it keeps its slot until it ends.
var workers = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

// ErrBusy means no worker slot became free before the deadline.
var ErrBusy = errors.New("canonicalization is busy")

// ErrTimeout means a canonicalization overran its time.
var ErrTimeout = errors.New("canonicalization took too long")

// Options choose how strict a canonicalization is.
type Options struct {
	// Safe fails on any property or type that does not expand to an
	// absolute IRI instead of dropping it silently: a dropped claim is an
	// unsigned claim. Use it for credentials; presentations of ACA-Py
	// 0.12 carry presentation_submission without a context for it.
	Safe bool
}

// Canonize returns the canonical N-Quads of doc (decoded JSON). Errors
// wrap ErrLimits, ErrBusy, ErrTimeout or an *UnsupportedContextError, or
// are json-gold's for malformed JSON-LD.
func (c *Canonicalizer) Canonize(ctx context.Context, doc any, o Options) (string, error) {
	return bounded(ctx, c, doc, func() (string, error) { return c.canonize(doc, o) })
}

// Expand returns doc (decoded JSON) in JSON-LD expanded form, in safe
// mode, its contexts resolved through the Loader: what each member means,
// however it is spelled (a term, an alias, an absolute IRI). It runs
// under the limits and the worker slots of Canonize.
func (c *Canonicalizer) Expand(ctx context.Context, doc any) ([]any, error) {
	return bounded(ctx, c, doc, func() ([]any, error) {
		opts := ld.NewJsonLdOptions("")
		opts.DocumentLoader = c.loader
		opts.ProcessingMode = ld.JsonLd_1_1
		opts.SafeMode = true
		return ld.NewJsonLdProcessor().Expand(doc, opts)
	})
}

// bounded runs work on doc in a worker slot, within the limits' shape and
// time: a run that overruns its time cannot be stopped, so it keeps its
// slot until it ends, and a panic in json-gold is an error.
func bounded[T any](ctx context.Context, c *Canonicalizer, doc any, work func() (T, error)) (T, error) {
	var zero T
	if err := c.limits.CheckShape(doc); err != nil {
		return zero, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.limits.Timeout)
	defer cancel()
	select {
	case workers <- struct{}{}:
	case <-ctx.Done():
		return zero, ErrBusy
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-workers }()
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("json-ld processing failed: %v", p)}
			}
		}()
		v, err := work()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ErrTimeout
	}
}

func (c *Canonicalizer) canonize(doc any, o Options) (string, error) {
	opts := ld.NewJsonLdOptions("")
	opts.DocumentLoader = c.loader
	opts.ProcessingMode = ld.JsonLd_1_1
	opts.SafeMode = o.Safe
	opts.Format = ""
	dsAny, err := ld.NewJsonLdProcessor().ToRDF(doc, opts)
	if err != nil {
		return "", err
	}
	dataset, ok := dsAny.(*ld.RDFDataset)
	if !ok {
		return "", errors.New("json-ld processing gave no dataset")
	}
	if err := c.checkDataset(dataset); err != nil {
		return "", err
	}
	nopts := ld.NewJsonLdOptions("")
	nopts.Algorithm = ld.AlgorithmURDNA2015
	nopts.Format = "application/n-quads"
	out, err := ld.NewJsonLdApi().Normalize(dataset, nopts)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		return "", errors.New("canonicalization gave no N-Quads")
	}
	return s, nil
}

// checkDataset enforces MaxQuads, MaxBlankNodes and MaxTwinBlankNodes
// before the canonicalization algorithm runs. Twins are blank nodes whose
// quads look the same with themselves and every other blank node masked:
// exactly the groups RDFC-1.0 has to permute.
func (c *Canonicalizer) checkDataset(ds *ld.RDFDataset) error {
	quads := 0
	mentions := map[string][]string{}
	quadsOf := map[string][]blankQuad{}
	for graph, qs := range ds.Graphs {
		quads += len(qs)
		if quads > c.limits.MaxQuads {
			return limitErr("more than %d RDF statements", c.limits.MaxQuads)
		}
		for _, q := range qs {
			parts := [4]string{nodeKey(q.Subject), nodeKey(q.Predicate), nodeKey(q.Object), graphKey(graph)}
			seen := map[string]bool{}
			for _, p := range parts {
				if strings.HasPrefix(p, "_:") && !seen[p] {
					seen[p] = true
					mentions[p] = append(mentions[p], maskQuad(parts, p))
					quadsOf[p] = append(quadsOf[p], parts)
				}
			}
			if len(mentions) > c.limits.MaxBlankNodes {
				return limitErr("more than %d blank nodes", c.limits.MaxBlankNodes)
			}
		}
	}
	groups := map[string]int{}
	sigs := make(map[string]string, len(mentions))
	for n, ms := range mentions {
		sort.Strings(ms)
		sig := strings.Join(ms, "\n")
		sigs[n] = sig
		groups[sig]++
		if groups[sig] > c.limits.MaxTwinBlankNodes {
			return limitErr("more than %d indistinguishable blank nodes", c.limits.MaxTwinBlankNodes)
		}
	}
	if !nDegreeWork(quadsOf, sigs, nDegreeBudget) {
		return limitErr("blank nodes too alike to canonicalize in bounded time")
	}
	return nil
}

func maskQuad(parts [4]string, self string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case p == self:
			b.WriteString("_:a")
		case strings.HasPrefix(p, "_:"):
			b.WriteString("_:z")
		default:
			b.WriteString(p)
		}
	}
	return b.String()
}

func graphKey(name string) string {
	if name == "@default" {
		return ""
	}
	return name
}

func nodeKey(n ld.Node) string {
	switch v := n.(type) {
	case nil:
		return ""
	case ld.BlankNode:
		return v.Attribute
	case ld.IRI:
		return "<" + v.Value + ">"
	case ld.Literal:
		return fmt.Sprintf("%q^^%s@%s", v.Value, v.Datatype, v.Language)
	default:
		return n.GetValue()
	}
}

// OccupyWorkers takes every canonicalization slot until release is
// called: for tests of what callers do when the verifier is saturated.
func OccupyWorkers() (release func()) {
	for i := 0; i < cap(workers); i++ {
		workers <- struct{}{}
	}
	return func() {
		for i := 0; i < cap(workers); i++ {
			<-workers
		}
	}
}
