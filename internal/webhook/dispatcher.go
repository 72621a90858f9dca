package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/netguard"
	"github.com/proofgate/proofgate/internal/outbox"
)

// Kind is the outbox kind of webhook messages.
const Kind = "webhook"

// Delivery policy of webhook messages: a receiver that is down is tried
// again after about 2s, 4s, 8s, … up to hourly (each wait jittered into
// its upper half), 16 times in all: about four hours, at most five.
const (
	RetryBackoff = 2 * time.Second
	MaxAttempts  = 16
	// maxResponse is how much of a receiver's answer is read (and dropped).
	maxResponse = 64 << 10
)

// message is the outbox payload of one event for one endpoint.
type message struct {
	// Endpoint is the URL; the endpoint's current secret and options are
	// looked up by it at delivery.
	Endpoint string `json:"endpoint"`
	// EventID is the webhook-id.
	EventID string `json:"eventId"`
	// Body is the exact JSON that is signed and sent.
	Body []byte `json:"body"`
	// Change names the event's change, confirmed before delivery
	// (outbox.ConfirmFunc.Check); messages of older versions lack it.
	outbox.Change
}

type endpoint struct {
	cfg    Config
	key    []byte
	orgs   map[string]bool
	client *http.Client
}

// Dispatcher turns state changes into webhook messages in the outbox and
// delivers them. Make one per config with New and Close it in the
// config's Cleanup; the deliverer (pooled across configs) runs the newest
// open one's delivery function.
type Dispatcher struct {
	endpoints map[string]*endpoint // by URL
	order     []string
	box       *outbox.Outbox
	deliverer *outbox.Deliverer
	logger    *zap.Logger
	now       func() time.Time
	confirm   outbox.ConfirmFunc
	unhandle  func()
}

// New prepares the endpoints of cfgs (placeholders already resolved) and
// registers the dispatcher's delivery function with deliverer, until
// Close. confirm, if set, is asked before each delivery whether the
// change happened.
func New(cfgs []Config, deliverer *outbox.Deliverer, logger *zap.Logger, confirm outbox.ConfirmFunc) (*Dispatcher, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	d := &Dispatcher{
		endpoints: map[string]*endpoint{},
		box:       deliverer.Outbox(),
		deliverer: deliverer,
		logger:    logger,
		now:       time.Now,
		confirm:   confirm,
	}
	for _, c := range cfgs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if _, dup := d.endpoints[c.URL]; dup {
			return nil, fmt.Errorf("webhook %s: configured twice", shownURL(c.URL))
		}
		key, err := ParseSecret(c.Secret)
		if err != nil {
			return nil, fmt.Errorf("webhook %s: secret: %v", shownURL(c.URL), err)
		}
		timeout := time.Duration(c.Timeout)
		if timeout == 0 {
			timeout = DefaultTimeout
		}
		ep := &endpoint{cfg: c, key: key, client: netguard.Client(netguard.Options{AllowPrivate: c.AllowPrivate, Timeout: timeout})}
		if len(c.Orgs) > 0 {
			ep.orgs = map[string]bool{}
			for _, o := range c.Orgs {
				ep.orgs[o] = true
			}
		}
		d.endpoints[c.URL] = ep
		d.order = append(d.order, c.URL)
	}
	d.unhandle = deliverer.Handle(Kind, d.deliver, nil)
	return d, nil
}

// Close withdraws the dispatcher's delivery function: the one registered
// before it is used again if it was the newest (a config Caddy refused
// after provisioning it must not take over the running config's
// webhooks). Messages are not touched. Close may be called more than once.
func (d *Dispatcher) Close() {
	if d.unhandle != nil {
		d.unhandle()
	}
}

// messageID names the outbox message of event id for url: the same event
// staged again replaces its message instead of adding one.
func messageID(eventID, url string) string {
	sum := sha256.Sum256([]byte(url))
	return eventID + "-" + hex.EncodeToString(sum[:8])
}

// Stage writes one outbox message per endpoint that wants c's record: the
// change's notifications are durable before the change is. They are held
// (outbox.Outbox.Stage) until Commit releases them: another change's
// commit does not send them, so Abort can still withdraw them.
func (d *Dispatcher) Stage(ctx context.Context, c backend.StateChange) (backend.Staged, error) {
	at := d.now()
	st := &staged{d: d}
	for _, url := range d.order {
		ep := d.endpoints[url]
		if ep.orgs != nil && !ep.orgs[c.Record.OrgID] {
			continue
		}
		body, err := json.Marshal(NewEvent(c, at, ep.cfg.IncludeRecord))
		if err != nil {
			st.Abort(ctx)
			return nil, err
		}
		id := messageID(c.ID, url)
		if err := d.box.Stage(ctx, id, Kind, message{Endpoint: url, EventID: c.ID, Body: body, Change: outbox.Change{OrgID: c.Record.OrgID, RecordID: c.Record.ID, State: c.Record.State}}); err != nil {
			st.Abort(ctx)
			return nil, fmt.Errorf("webhook: queueing event %s: %w", c.ID, err)
		}
		st.ids = append(st.ids, id)
	}
	return st, nil
}

type staged struct {
	d   *Dispatcher
	ids []string
}

// Commit releases this change's messages, and no others.
func (s *staged) Commit() {
	if len(s.ids) > 0 {
		s.d.deliverer.Notify(s.ids...)
	}
}

func (s *staged) Abort(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for _, id := range s.ids {
		if err := s.d.box.Cancel(ctx, id); err != nil {
			s.d.logger.Warn("webhook: withdrawing the event of a change that was not stored", zap.String("message_id", id), zap.Error(err))
		}
	}
}

// deliver is the outbox delivery function of kind "webhook": one signed
// POST. 2xx is delivered; 410 Gone refuses the message for good; anything
// else is tried again. An endpoint this config does not know is tried
// again too: the config that knows it may be the one running (this one is
// being provisioned, or was refused), and a config that really dropped
// the endpoint fails its messages after MaxAttempts.
func (d *Dispatcher) deliver(ctx context.Context, e outbox.Entry) error {
	var m message
	if err := e.Decode(&m); err != nil {
		return outbox.Permanent(&outbox.Failure{Public: "undecodable message", Err: err})
	}
	ep, ok := d.endpoints[m.Endpoint]
	if !ok {
		// Another handler's, sharing this storage's deliverer (another
		// site), or a config's being replaced: the deliverer asks the
		// other registrations (outbox.ErrNotMine).
		return &outbox.Failure{Public: "endpoint-not-configured", Err: fmt.Errorf("%w: no webhook %s in this config", outbox.ErrNotMine, m.Endpoint)}
	}
	if ep.orgs != nil && !ep.orgs[m.OrgID] {
		// This config's webhook at that URL does not take the event's org:
		// the message is another site's, to be signed with its secret.
		return &outbox.Failure{Public: "endpoint-not-configured", Err: fmt.Errorf("%w: webhook %s takes no events of org %s in this config", outbox.ErrNotMine, m.Endpoint, m.OrgID)}
	}
	if err := d.confirm.Check(ctx, e, m.Change, d.logger); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.Endpoint, bytes.NewReader(m.Body))
	if err != nil {
		return outbox.Permanent(err)
	}
	at := d.now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "proofgate-webhook")
	req.Header.Set(HeaderID, m.EventID)
	req.Header.Set(HeaderTimestamp, fmt.Sprint(at.Unix()))
	req.Header.Set(HeaderSignature, Sign(ep.key, m.EventID, at, m.Body))
	resp, err := ep.client.Do(req)
	if err != nil {
		return &outbox.Failure{Public: netguard.Category(err), Err: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		return nil
	case resp.StatusCode == http.StatusGone:
		return outbox.Permanent(fmt.Errorf("the endpoint answered HTTP %d", resp.StatusCode))
	default:
		return fmt.Errorf("the endpoint answered HTTP %d", resp.StatusCode)
	}
}

// DeliveryOptions is the outbox policy of webhook messages.
func DeliveryOptions(logger *zap.Logger, onResult outbox.ResultFunc) outbox.Options {
	return outbox.Options{
		Workers:      4,
		MaxAttempts:  MaxAttempts,
		RetryBackoff: RetryBackoff,
		Lease:        maxTimeout + time.Minute,
		DefaultKind:  Kind,
		Logger:       logger,
		OnResult:     onResult,
	}
}
