package jwt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/lestrrat-go/httprc/v3"
	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"

	"github.com/proofgate/proofgate/internal/metrics"
	"github.com/proofgate/proofgate/internal/netguard"
	"github.com/proofgate/proofgate/internal/redact"
)

// remotePool holds the JWKS caches, keyed by URL and fetch settings, so a
// config reload (which provisions the new config before cleaning up the
// old) reuses the warm cache instead of refetching, and the last Cleanup
// stops its goroutines.
var remotePool = caddy.NewUsagePool()

// remoteOptions are the fetch settings of one JWKS cache.
type remoteOptions struct {
	url             string
	refreshInterval time.Duration // scheduled refresh
	minRefresh      time.Duration // at most one forced refresh per this
	fetchTimeout    time.Duration
	maxSize         int64
}

func (o remoteOptions) poolKey() string {
	return fmt.Sprintf("%s|%d|%d|%d|%d", o.url, o.refreshInterval, o.minRefresh, o.fetchTimeout, o.maxSize)
}

// remoteKeys is a JWKS cache. The fetching, scheduling, retry after
// failure and keeping of the last good set are httprc's (the engine of
// lestrrat-go/jwx's jwk.Cache); this type adds only what httprc leaves to
// its caller: when to force a refresh for an unknown kid, at most once per
// minRefresh, with concurrent misses collapsed into one fetch.
type remoteKeys struct {
	opts remoteOptions
	log  *zap.Logger
	// shown is the URL as logs show it (redact.URL).
	shown string
	ctrl  httprc.Controller
	res   *httprc.ResourceBase[*keySet]

	flight singleflight.Group

	added       bool      // the resource is registered with httprc
	lastAttempt time.Time // last fetch started by refresh

	// stopped is closed once every goroutine of the cache has returned.
	stopped chan struct{}
}

func newRemoteKeys(opts remoteOptions, log *zap.Logger) (*remoteKeys, error) {
	rk := &remoteKeys{opts: opts, log: log, shown: "(not a valid URL)", stopped: make(chan struct{})}
	if u, err := url.Parse(opts.url); err == nil {
		rk.shown = redact.URL(u)
	}
	res, err := httprc.NewResource[*keySet](opts.url,
		httprc.TransformFunc[*keySet](rk.transform),
		httprc.WithConstantInterval(opts.refreshInterval),
		// After a failed scheduled fetch httprc retries after MinInterval;
		// it also paces httprc's ticker, so it is never under a second.
		httprc.WithMinInterval(max(opts.minRefresh, time.Second)),
	)
	if err != nil {
		return nil, err
	}
	rk.res = res
	client := httprc.NewClient(
		httprc.WithHTTPClient(&http.Client{
			Timeout: opts.fetchTimeout,
			// A JWKS URL is configured exactly; a redirect elsewhere is
			// not followed, so keys come only from where the operator said.
			CheckRedirect: netguard.NoRedirects,
		}),
		httprc.WithWorkers(1),
		httprc.WithErrorSink(errorSink{rk}),
	)
	// The context only bounds the cache's life; Destruct cancels it.
	rk.ctrl, err = client.Start(context.Background())
	if err != nil {
		return nil, err
	}
	return rk, nil
}

// transform reads a JWKS response, refusing bodies over the size cap
// (a truncated document would fail to parse anyway, but the error should
// say why).
func (rk *remoteKeys) transform(_ context.Context, res *http.Response) (*keySet, error) {
	data, err := io.ReadAll(io.LimitReader(res.Body, rk.opts.maxSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > rk.opts.maxSize {
		return nil, fmt.Errorf("JWKS larger than %d bytes", rk.opts.maxSize)
	}
	set, err := parseJWKS(data)
	if err != nil {
		return nil, err
	}
	if len(set.keys) == 0 {
		// Nothing to verify with: an IdP fault far more often than a
		// deliberate withdrawal of every key, so the last good set stays
		// (a compromised key is replaced by rotation, not by emptiness).
		return nil, fmt.Errorf("JWKS holds no usable signature key (%d skipped: private, weak, symmetric, encryption or unknown keys)", set.skipped)
	}
	metrics.JWKSFetch(metrics.JWKSOK)
	if set.private > 0 {
		rk.log.Warn("the JWKS publishes private keys; they are not used (whoever reads the JWKS could sign tokens with them)",
			zap.String("url", rk.shown), zap.Int("private_keys", set.private))
	}
	if c := rk.log.Check(zap.DebugLevel, "fetched JWKS"); c != nil {
		c.Write(zap.String("url", rk.shown), zap.Int("keys", len(set.keys)), zap.Int("skipped", set.skipped))
	}
	return set, nil
}

// current returns the last good key set (nil before the first success).
func (rk *remoteKeys) current() *keySet { return rk.res.Resource() }

// keys returns the last good key set. The first call fetches it (so a
// config load never touches the network); while no fetch has ever
// succeeded, callers retry at most once per minRefresh.
func (rk *remoteKeys) keys(ctx context.Context) *keySet {
	if set := rk.current(); set != nil {
		return set
	}
	_ = rk.refresh(ctx)
	return rk.current()
}

// refresh fetches the JWKS now, because a token named a key the cache
// lacks (or none was ever fetched). It returns errRateLimited if a fetch
// was started less than minRefresh ago, so a stream of tokens with made-up
// kids costs the IdP at most one request per minRefresh. Concurrent callers
// share one fetch and its outcome.
func (rk *remoteKeys) refresh(ctx context.Context) error {
	ch := rk.flight.DoChan("refresh", func() (any, error) {
		// Only one flight runs at a time: added and lastAttempt need no lock.
		if !rk.added {
			if err := rk.register(); err != nil {
				return nil, err
			}
		} else if time.Since(rk.lastAttempt) < rk.opts.minRefresh {
			metrics.JWKSFetch(metrics.JWKSRateLimited)
			return nil, errRateLimited
		}
		rk.lastAttempt = time.Now()
		// Detached from the first caller's request: other callers share
		// the result, and the fetch has its own timeout.
		fctx, cancel := context.WithTimeout(context.Background(), rk.opts.fetchTimeout+time.Second)
		defer cancel()
		err := rk.ctrl.Refresh(fctx, rk.opts.url)
		if err != nil {
			metrics.JWKSFetch(metrics.JWKSFailed)
			rk.log.Warn("fetching JWKS on demand failed; keeping the last good key set",
				zap.String("url", rk.shown), rk.errorField(err))
		}
		return nil, err
	})
	select {
	case r := <-ch:
		return r.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// register hands the resource to httprc, which then refreshes it on
// schedule. Its first fetch is the caller's synchronous one, so the
// scheduled one is pushed a full interval out.
func (rk *remoteKeys) register() error {
	rk.res.SetNext(time.Now().Add(rk.opts.refreshInterval))
	ctx, cancel := context.WithTimeout(context.Background(), rk.opts.fetchTimeout)
	defer cancel()
	if err := rk.ctrl.Add(ctx, rk.res, httprc.WithWaitReady(false)); err != nil {
		return fmt.Errorf("registering JWKS URL: %w", err)
	}
	rk.added = true
	return nil
}

var errRateLimited = errors.New("JWKS refreshed too recently")

// Destruct stops the cache's goroutines (caddy.Destructor, called by the
// pool when the last provider using it is cleaned up).
func (rk *remoteKeys) Destruct() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := rk.ctrl.ShutdownContext(ctx)
	if err == nil {
		close(rk.stopped)
	}
	return err
}

// errorSink logs failed scheduled fetches; the last good key set stays.
type errorSink struct{ rk *remoteKeys }

func (s errorSink) Put(_ context.Context, err error) {
	metrics.JWKSFetch(metrics.JWKSFailed)
	s.rk.log.Warn("fetching JWKS failed; keeping the last good key set",
		zap.String("url", s.rk.shown), s.rk.errorField(err))
}

// errorField logs a fetch error with the URL redacted: httprc's errors
// quote the URL they fetched (checkJWKSURL refuses credentials, but a
// log must not depend on that check alone).
func (rk *remoteKeys) errorField(err error) zap.Field {
	msg := err.Error()
	if rk.shown != rk.opts.url {
		msg = strings.ReplaceAll(msg, rk.opts.url, rk.shown)
		// net/http's errors show the password as "***" but keep the
		// user name, which can be a token by itself.
		if u, perr := url.Parse(rk.opts.url); perr == nil && u.User != nil {
			msg = strings.ReplaceAll(msg, u.User.String()+"@", "xxxxx@")
			msg = strings.ReplaceAll(msg, u.User.Username()+":***@", "xxxxx@")
		}
	}
	return zap.String("error", msg)
}
