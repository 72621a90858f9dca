package agent

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

// DefaultOrg stands for every org that has no org line and so goes to the
// default backend, in the org checks.
const DefaultOrg = "*"

// checkTimeout bounds the whole load-time check of one backend.
const checkTimeout = 2 * time.Minute

// Checks runs a backend's load-time org checks in the background: the
// agent may be down or slow while Caddy loads, and a reload must not wait
// for it. Each org is checked once; a problem is one ERROR line naming the
// org, its tenant and what is wrong, success one INFO line.
type Checks struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// StartChecks checks every org with check, in the background.
func StartChecks(logger *zap.Logger, backendKind string, orgs []backend.Org, check func(ctx context.Context, org backend.Org) error) *Checks {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	c := &Checks{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer cancel()
		var wg sync.WaitGroup
		for _, org := range orgs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := check(ctx, org)
				fields := []zap.Field{zap.String("backend", backendKind), zap.String("org", org.ID)}
				if org.Tenant != "" {
					fields = append(fields, zap.String("tenant", org.Tenant))
				}
				switch {
				case err == nil:
					logger.Info("agent serves the org", fields...)
				case ctx.Err() != nil:
					// Stopped by a reload or Cleanup: nothing to report.
				default:
					logger.Error("org check at load: "+err.Error(), fields...)
				}
			}()
		}
		wg.Wait()
	}()
	return c
}

// Wait blocks until every check has finished.
func (c *Checks) Wait() {
	if c != nil {
		<-c.done
	}
}

// Stop ends the checks still running and waits for them.
func (c *Checks) Stop() {
	if c != nil {
		c.cancel()
		<-c.done
	}
}
