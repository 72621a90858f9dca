package did

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/netguard"
	"github.com/proofgate/proofgate/internal/ttlcache"
)

// Options configure a Resolver. Zero values take the defaults.
type Options struct {
	// UniversalResolver is the base URL of a DIF Universal Resolver
	// (GET <url>/1.0/identifiers/<did>) for methods not resolved here;
	// empty: such methods are unsupported. The operator chooses it, so it
	// may be on a private network.
	UniversalResolver string
	// UniversalMethods, if set, are the only DID methods the universal
	// resolver is asked about; any other is unsupported. Its drivers may
	// fetch hosts the DID names (did:webvh, did:webs …) from the
	// resolver's network, and the prover chooses the DID.
	UniversalMethods []string
	// AllowPrivate lets did:web reach private addresses (tests, private
	// deployments); off, the outbound guard refuses them.
	AllowPrivate bool
	// Timeout bounds one fetch (default 5s).
	Timeout time.Duration
	// MaxDocumentSize caps a fetched DID document (default 256 KiB).
	MaxDocumentSize int64
	// CacheTTL keeps resolved documents (default 5 min); failures are kept
	// for a tenth of it.
	CacheTTL time.Duration
	// CacheSize bounds the cached documents (default 1000).
	CacheSize int
	// WebClient replaces the guarded client for did:web (tests with a
	// TLS test server); nil: netguard.Client.
	WebClient *http.Client
}

// Resolver resolves DIDs with a bounded cache. Safe for concurrent use.
type Resolver struct {
	o         Options
	web       *http.Client
	universal *http.Client
	cache     *ttlcache.Cache[*Document]
}

var _ KeyResolver = (*Resolver)(nil)

// NewResolver returns a Resolver.
func NewResolver(o Options) *Resolver {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxDocumentSize <= 0 {
		o.MaxDocumentSize = 256 << 10
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = 5 * time.Minute
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 1000
	}
	web := o.WebClient
	if web == nil {
		web = netguard.Client(netguard.Options{AllowPrivate: o.AllowPrivate, Timeout: o.Timeout})
	}
	return &Resolver{
		o:         o,
		web:       web,
		universal: &http.Client{Timeout: o.Timeout, CheckRedirect: netguard.NoRedirects},
		cache:     ttlcache.New[*Document](o.CacheSize, o.CacheTTL, o.CacheTTL/10),
	}
}

// Resolve returns the document of a DID (not a DID URL).
func (r *Resolver) Resolve(ctx context.Context, did string) (*Document, error) {
	if len(did) > MaxDIDLength {
		return nil, fmt.Errorf("%w: DID longer than %d", ErrInvalid, MaxDIDLength)
	}
	switch MethodName(did) {
	case "key":
		return resolveKey(did)
	case "jwk":
		return resolveJWK(did)
	case "":
		return nil, fmt.Errorf("%w: %q is not a DID", ErrInvalid, did)
	case "web":
		return r.cache.Get(ctx, did, func(ctx context.Context) (*Document, error) { return r.resolveWeb(ctx, did) })
	default:
		if r.o.UniversalResolver == "" {
			return nil, fmt.Errorf("%w: did:%s", ErrUnsupported, MethodName(did))
		}
		if len(r.o.UniversalMethods) > 0 && !slices.Contains(r.o.UniversalMethods, MethodName(did)) {
			return nil, fmt.Errorf("%w: did:%s is not among did_resolver's methods", ErrUnsupported, MethodName(did))
		}
		return r.cache.Get(ctx, did, func(ctx context.Context) (*Document, error) { return r.resolveUniversal(ctx, did) })
	}
}

// ResolveKey resolves the DID of vmID and returns the method if the DID
// document authorizes it for relationship.
func (r *Resolver) ResolveKey(ctx context.Context, vmID, relationship string) (*VerificationMethod, error) {
	d, rest := Split(vmID)
	if rest == "" || !strings.HasPrefix(rest, "#") {
		if MethodName(d) == "key" && rest == "" {
			vmID = KeyMethodID(d)
		} else {
			return nil, fmt.Errorf("%w: verification method %q is not a DID URL with a fragment", ErrInvalid, vmID)
		}
	}
	doc, err := r.Resolve(ctx, d)
	if err != nil {
		return nil, err
	}
	return doc.Method(vmID, relationship)
}

// WebURL is where did:web:<id> publishes its document.
func WebURL(did string) (string, error) {
	id := strings.TrimPrefix(did, "did:web:")
	if id == "" || strings.ContainsAny(id, "/?#") {
		return "", fmt.Errorf("%w: did:web %q", ErrInvalid, did)
	}
	parts := strings.Split(id, ":")
	host, err := url.PathUnescape(parts[0])
	if err != nil || host == "" || strings.ContainsAny(host, "/@") {
		return "", fmt.Errorf("%w: did:web host %q", ErrInvalid, parts[0])
	}
	path := "/.well-known"
	if len(parts) > 1 {
		segs := make([]string, 0, len(parts)-1)
		for _, p := range parts[1:] {
			s, err := url.PathUnescape(p)
			if err != nil || s == "" || s == "." || s == ".." || strings.Contains(s, "/") {
				return "", fmt.Errorf("%w: did:web path %q", ErrInvalid, p)
			}
			segs = append(segs, url.PathEscape(s))
		}
		path = "/" + strings.Join(segs, "/")
	}
	u := &url.URL{Scheme: "https", Host: host, Path: path + "/did.json"}
	return u.String(), nil
}

func (r *Resolver) resolveWeb(ctx context.Context, did string) (*Document, error) {
	u, err := WebURL(did)
	if err != nil {
		return nil, err
	}
	raw, err := r.fetch(ctx, r.web, u, "application/did+json, application/json")
	if err != nil {
		return nil, err
	}
	return ParseDocument(did, raw)
}

func (r *Resolver) resolveUniversal(ctx context.Context, did string) (*Document, error) {
	u := strings.TrimRight(r.o.UniversalResolver, "/") + "/1.0/identifiers/" + url.PathEscape(did)
	raw, err := r.fetch(ctx, r.universal, u, "application/did+ld+json, application/ld+json, application/json")
	if err != nil {
		return nil, err
	}
	return parseResolution(did, raw)
}

// fetch GETs u with the size limit; a non-200 is ErrNotFound (404/410) or
// ErrUnreachable.
func (r *Resolver) fetch(ctx context.Context, c *http.Client, u, accept string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, redact(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, fmt.Errorf("%w: HTTP %d", ErrNotFound, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: HTTP %d", ErrUnreachable, resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, r.o.MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, redact(err))
	}
	if int64(len(raw)) > r.o.MaxDocumentSize {
		return nil, fmt.Errorf("%w: document larger than %d bytes", ErrInvalid, r.o.MaxDocumentSize)
	}
	return raw, nil
}

// redact keeps an error's kind, not the addresses in it.
func redact(err error) string {
	if errors.Is(err, netguard.ErrForbiddenAddress) {
		return netguard.ErrForbiddenAddress.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "connection failed"
}
