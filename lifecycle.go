package proofgate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyevents"
	"github.com/caddyserver/certmagic"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/handlers"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/outbox"
	"github.com/proofgate/proofgate/internal/secret"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/sweeper"
	"github.com/proofgate/proofgate/internal/webhook"
)

// EventStateChanged is the Caddy event emitted on every state change of a
// proof record, with the webhook event's data (proofRecordId, threadId,
// orgId, previousState, state, isVerified, id).
const EventStateChanged = "proofgate.proof_state_changed"

// webhookNamespace is where webhook messages wait, under proofgate/.
const webhookNamespace = "webhooks"

// provisionChanges sets up what hears of state changes: the webhooks
// (durable, through the pooled outbox deliverer) and Caddy's events app.
// Backends that report their own transitions get the sink; the gateway
// reports the rest.
func (h *Handler) provisionChanges(ctx caddy.Context, storage certmagic.Storage, backends []backend.Backend) error {
	if err := registerCollectors(ctx.GetMetricsRegistry(), lifecycleCollectors()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	sink := &changeSink{ctx: ctx, logger: h.logger.Named("changes")}
	var cfgs []webhook.Config
	repl := caddy.NewReplacer()
	for i, c := range h.Webhooks {
		var err error
		if c.URL, err = repl.ReplaceOrErr(c.URL, false, true); err != nil {
			return fmt.Errorf("webhook %d: url: %v", i, err)
		}
		if c.URL == "" {
			h.logger.Info("webhook disabled: its url is empty", zap.Int("webhook", i))
			continue
		}
		// Named by position, not by url: a receiver's url may carry a
		// token in its path or query.
		secret.WarnLiteral(h.logger, fmt.Sprintf("secret of webhook %d", i), c.Secret)
		if c.Secret, err = repl.ReplaceOrErr(c.Secret, true, true); err != nil {
			return fmt.Errorf("webhook %d: secret: %v", i, err)
		}
		cfgs = append(cfgs, c)
	}
	if len(cfgs) > 0 {
		key := outbox.StorageKey(storage, webhookNamespace)
		logger := h.logger.Named("webhook")
		d, err := outbox.Acquire(key, func() (*outbox.Deliverer, error) {
			return outbox.NewDeliverer(outbox.New(storage, webhookNamespace, nil), webhook.DeliveryOptions(logger, nil)), nil
		})
		if err != nil {
			return err
		}
		h.webhookKey = key
		if sink.webhooks, err = webhook.New(cfgs, d, logger, h.confirmChange); err != nil {
			return err
		}
	}
	app, err := ctx.App("events")
	if err != nil {
		if sink.webhooks != nil {
			sink.webhooks.Close()
		}
		return fmt.Errorf("loading the events app: %v", err)
	}
	sink.events, _ = app.(*caddyevents.App)
	h.gw.Changes = sink
	observed := observedStates{store: store.New(storage, "observed"), seen: newSeenStates()}
	h.gw.Observed = observed
	for _, b := range backends {
		if r, ok := b.(backend.ChangeReporter); ok {
			r.SetChangeSink(sink)
		}
	}
	h.startSweeper(storage, backends, observed.sweepTask())
	return nil
}

// startSweeper runs the clean-up of records, invitations and short URLs:
// the backends' tasks and the gateway's own.
func (h *Handler) startSweeper(storage certmagic.Storage, backends []backend.Backend, own ...sweeper.Task) {
	tasks := own
	for _, b := range backends {
		if s, ok := b.(interface{ SweepTasks() []sweeper.Task }); ok {
			tasks = append(tasks, s.SweepTasks()...)
		}
	}
	if h.gw.ShortURLs != nil {
		tasks = append(tasks, h.gw.ShortURLs.SweepTask())
	}
	if h.gw.Idempotency != nil {
		tasks = append(tasks, h.gw.Idempotency.SweepTask())
	}
	h.sweeper = sweeper.New(storage, tasks, sweeper.Options{
		Logger: h.logger.Named("sweeper"),
		OnRemoved: func(what string, n int) {
			lifecycleMetrics.swept.WithLabelValues(what).Add(float64(n))
		},
	})
	h.sweeper.Start()
}

// confirmChange asks the org's backend whether a record really reached a
// state, where it can tell (the local verifier); agents' changes were
// reported after the fact and need no check.
func (h *Handler) confirmChange(ctx context.Context, orgID, recordID, state string) (bool, error) {
	b, _, ok := h.gw.Backends.Route(orgID)
	if !ok {
		return true, nil
	}
	c, ok := b.(backend.ChangeConfirmer)
	if !ok {
		return true, nil
	}
	return c.Reached(ctx, recordID, state)
}

// cleanupChanges withdraws this handler's webhook functions from the
// pooled deliverer, so that a config Caddy refused after provisioning it
// leaves the running config's in charge; releases its hold on the webhook
// deliverer; and stops its sweeper. It tolerates a handler whose
// Provision failed part-way.
func (h *Handler) cleanupChanges() error {
	if h.sweeper != nil {
		h.sweeper.Stop()
		h.sweeper = nil
	}
	if h.gw != nil {
		if s, ok := h.gw.Changes.(*changeSink); ok && s.webhooks != nil {
			s.webhooks.Close()
		}
	}
	if h.webhookKey == "" {
		return nil
	}
	err := outbox.Release(h.webhookKey)
	h.webhookKey = ""
	return err
}

func registerCollectors(reg *prometheus.Registry, cs []prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}

// changeSink fans a state change out to the webhooks (staged in the
// outbox before the change is stored) and, once it is stored, to Caddy's
// events app.
type changeSink struct {
	ctx      caddy.Context
	logger   *zap.Logger
	webhooks *webhook.Dispatcher
	events   *caddyevents.App
}

// Stage implements backend.ChangeSink.
func (s *changeSink) Stage(ctx context.Context, c backend.StateChange) (backend.Staged, error) {
	var inner backend.Staged = backend.NopStaged{}
	if s.webhooks != nil {
		st, err := s.webhooks.Stage(ctx, c)
		if err != nil {
			lifecycleMetrics.events.Inc()
			return nil, err
		}
		inner = st
	}
	return &sinkStaged{sink: s, inner: inner, change: c, request: handlers.ChangesOf(ctx)}, nil
}

type sinkStaged struct {
	sink   *changeSink
	inner  backend.Staged
	change backend.StateChange
	// request collects the changes of the API request that caused this
	// one, for its request log line (nil: no request's line carries it).
	request *handlers.RequestChanges
}

func (st *sinkStaged) Commit() {
	st.inner.Commit()
	lifecycleMetrics.changes.WithLabelValues(stateLabel(st.change.Record.State)).Inc()
	st.log()
	// ShouldEmit: nothing subscribed and no debug log means the event
	// would be dropped unseen, so its data (a map) is not even built.
	if st.sink.events != nil && st.sink.events.ShouldEmit(EventStateChanged) {
		st.sink.events.Emit(st.sink.ctx, EventStateChanged, webhook.EventData(st.change))
	}
}

func (st *sinkStaged) Abort(ctx context.Context) { st.inner.Abort(ctx) }

// log puts the change on the line of the request that caused it (one
// line per handled request, sampled and silenced with the others), or,
// for a change no request's line carries (a presentation arriving over
// DIDComm, a record read showing the agent moved on, work a request left
// running), on a line of its own.
func (st *sinkStaged) log() {
	c := st.change
	if st.request.Add(handlers.RecordChange{ProofRecordID: c.Record.ID, PreviousState: c.PreviousState, State: c.Record.State}) {
		return
	}
	// Check first: a sampled log drops most lines, and then the fields
	// are never built.
	if ce := st.sink.logger.Check(zap.InfoLevel, "proof record state changed"); ce != nil {
		ce.Write(zap.String("proof_record_id", c.Record.ID),
			zap.String("previous_state", c.PreviousState),
			zap.String("state", c.Record.State))
	}
}

// observedStates keeps the last state seen of each agent record, one small
// document per record under proofgate/observed/. Two instances reading a
// record at once may both report its change: the event has one id
// (backend.ChangeID), so receivers see a duplicate, never a wrong event.
type observedStates struct {
	store *store.Store
	seen  *seenStates // what this process last read or wrote; nil: none
}

type observedState struct {
	State  string    `json:"state"`
	SeenAt time.Time `json:"seenAt"`
}

// observedRetention is how long a record's last seen state is kept after
// it was last seen (the sweeper deletes older ones; a read after that
// remembers the state again without reporting it).
const observedRetention = 30 * 24 * time.Hour

// Last implements handlers.StateMemory: a state equal to the stored one
// is answered from this process's memory when it can be, and refreshed in
// storage once its SeenAt is half way to observedRetention; a different
// state is left for Remember.
func (o observedStates) Last(ctx context.Context, id, state string) (string, bool, error) {
	if o.seen.is(id, state) {
		return state, true, nil
	}
	var old observedState
	switch err := o.store.Get(ctx, id, &old); {
	case errors.Is(err, store.ErrNotFound):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	if old.State != state {
		return old.State, true, nil
	}
	if time.Since(old.SeenAt) >= observedRetention/2 {
		return state, true, o.Remember(ctx, id, state)
	}
	o.seen.put(id, state)
	return state, true, nil
}

// Remember implements handlers.StateMemory. A state this process last
// read or wrote for id is not written again: storage holds it (or a later
// one), as an accept repeated on a done record finds.
func (o observedStates) Remember(ctx context.Context, id, state string) error {
	if o.seen.is(id, state) {
		return nil
	}
	if err := o.store.Put(ctx, id, observedState{State: state, SeenAt: time.Now().UTC()}); err != nil {
		return err
	}
	o.seen.put(id, state)
	return nil
}

// sweepTask deletes states not seen for observedRetention.
func (o observedStates) sweepTask() sweeper.Task {
	var cursor sweeper.Cursor
	return sweeper.Task{Name: "observed", Run: func(ctx context.Context, now time.Time, budget int) (map[string]int, error) {
		removed := 0
		names, err := cursor.Next(ctx, o.store, budget)
		if err != nil {
			return nil, err
		}
		for _, id := range names {
			var st observedState
			if err := o.store.Get(ctx, id, &st); err != nil {
				continue
			}
			if now.Sub(st.SeenAt) < observedRetention {
				continue
			}
			if err := o.store.Delete(ctx, id); err != nil {
				return map[string]int{"observed_states": removed}, err
			}
			removed++
		}
		return map[string]int{"observed_states": removed}, nil
	}}
}
