package agent

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
)

// OrphanNamespace is where orphaned requests are kept:
// proofgate/upstream-orphans/<thread id or uuid>.json.
const OrphanNamespace = "upstream-orphans"

// DefaultOrphanSweep is how often orphans are looked at again and listed.
const DefaultOrphanSweep = time.Hour

// maxListedOrphans caps the thread ids one log line names.
const maxListedOrphans = 20

// Orphan is a proof request the agent may hold although no client got its
// invitation: the create timed out or its connection broke after the agent
// may have acted, its record could not be read back, or its owner could
// not be stored. Nobody can answer it; it only takes room in the agent.
type Orphan struct {
	Agent  string `json:"agent"`
	OrgID  string `json:"orgId"`
	Tenant string `json:"tenant,omitempty"`
	// ThreadID is the request's thread when the agent named it; empty when
	// the create's answer was lost, and then Since and Until bound when the
	// agent may have created it.
	ThreadID string `json:"threadId,omitempty"`
	// InvitationID is the @id of the request's out-of-band invitation,
	// when the agent named it and the create could not withdraw it: a
	// sweep tries again (a request whose invitation is gone cannot be
	// answered, and is then forgotten).
	InvitationID string `json:"invitationId,omitempty"`
	Since        string `json:"since"`
	Until        string `json:"until"`
	// Reason is what went wrong: "timeout", "connection lost",
	// "answer unreadable", "record not readable", "owner not stored".
	Reason string `json:"reason"`
	// ProofRecordID and State are what the last sweep found at the agent.
	ProofRecordID string `json:"proofRecordId,omitempty"`
	State         string `json:"state,omitempty"`
	CheckedAt     string `json:"checkedAt,omitempty"`

	name string // document name
}

// Orphans keeps one agent's orphaned requests in Caddy storage (shared by
// a cluster), looks at them again periodically, and reports them: one log
// line per sweep while there are any, and the gauge
// caddy_proofgate_upstream_orphans{agent}.
type Orphans struct {
	st     *store.Store
	agent  string
	logger *zap.Logger

	mu   sync.Mutex
	stop context.CancelFunc
	done chan struct{}
}

// orphanGauge is package-global like proofgate's other metrics: every
// config load gets a fresh registry and registers it again.
var orphanGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Namespace: "caddy",
	Subsystem: "proofgate",
	Name:      "upstream_orphans",
	Help:      "Proof requests an upstream agent may hold that no client has the invitation for (a create timed out or lost its answer), by agent, as of the last sweep.",
}, []string{"agent"})

// Collectors are this package's metrics.
func Collectors() []prometheus.Collector { return []prometheus.Collector{orphanGauge} }

// RegisterMetrics registers the orphan gauge with reg (nil: none).
func RegisterMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	if err := reg.Register(orphanGauge); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	return nil
}

// NewOrphans returns the orphan list of agent (AgentID) in storage.
func NewOrphans(storage certmagic.Storage, agent string, logger *zap.Logger) *Orphans {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Orphans{st: store.New(storage, OrphanNamespace), agent: agent, logger: logger}
}

// Record remembers an orphan, on a context of its own (the request's may
// be what ran out). It never fails the caller: the create has failed
// already; a storage failure is logged with everything an operator needs.
func (o *Orphans) Record(org backend.Org, threadID, reason string, since time.Time) {
	o.record(Orphan{OrgID: org.ID, Tenant: org.Tenant, ThreadID: threadID, Reason: reason}, threadID, since)
}

// RecordWithInvitation remembers an orphan whose invitation the agent
// named but could not be withdrawn (its delete failed), as Record does;
// a sweep's Resolve may withdraw it later.
func (o *Orphans) RecordWithInvitation(org backend.Org, threadID, invitationID, reason string, since time.Time) {
	o.record(Orphan{OrgID: org.ID, Tenant: org.Tenant, ThreadID: threadID, InvitationID: invitationID, Reason: reason}, threadID, since)
}

// RecordRecord remembers an orphan known by its record id at the agent
// (a request proofgate made and could not delete again), as Record does.
func (o *Orphans) RecordRecord(org backend.Org, proofRecordID, reason string, since time.Time) {
	o.record(Orphan{OrgID: org.ID, Tenant: org.Tenant, ProofRecordID: proofRecordID, Reason: reason}, proofRecordID, since)
}

// record stores doc under name (a fresh one when name cannot name a
// document).
func (o *Orphans) record(doc Orphan, name string, since time.Time) {
	doc.Agent = o.agent
	doc.Since, doc.Until = since.UTC().Format(backend.TimeFormat), time.Now().UTC().Format(backend.TimeFormat)
	if name == "" || !validDocName(name) {
		name = uuid.NewString()
	}
	fields := []zap.Field{
		zap.String("agent", o.agent), zap.String("org", doc.OrgID), zap.String("tenant", doc.Tenant),
		zap.String("thread_id", doc.ThreadID), zap.String("invitation_id", doc.InvitationID),
		zap.String("proof_record_id", doc.ProofRecordID), zap.String("reason", doc.Reason),
		zap.String("since", doc.Since), zap.String("until", doc.Until),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := o.st.Put(ctx, name, doc); err != nil {
		o.logger.Error("orphaned proof request could not be recorded", append(fields, zap.Error(err))...)
		return
	}
	o.logger.Warn("the agent may hold a proof request no client has the invitation for; recorded as an orphan",
		append(fields, zap.String("storage_key", o.st.Key(name)))...)
}

func validDocName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s[0] != '.'
}

// List returns this agent's orphans, oldest first.
func (o *Orphans) List(ctx context.Context) ([]Orphan, error) {
	names, err := o.st.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Orphan
	for _, n := range names {
		var doc Orphan
		if err := o.st.Get(ctx, n, &doc); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			return nil, err
		}
		if doc.Agent != o.agent {
			continue
		}
		doc.name = n
		out = append(out, doc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Since < out[j].Since })
	return out, nil
}

// Resolve looks an orphan up at the agent: it returns the orphan updated
// with what the agent holds, and gone when the agent no longer holds an
// answerable request for it (the record is gone or ended, or its
// invitation was withdrawn), so that it can be forgotten. An error keeps
// the orphan as it was.
type Resolve func(ctx context.Context, o Orphan) (updated Orphan, gone bool, err error)

// Sweep looks at every orphan again with resolve (nil: none can be
// looked up), forgets those that are gone, stores what was learnt, logs
// one line naming the rest, and sets the gauge. It returns those left.
func (o *Orphans) Sweep(ctx context.Context, resolve Resolve) ([]Orphan, error) {
	list, err := o.List(ctx)
	if err != nil {
		o.logger.Warn("could not list orphaned proof requests", zap.String("agent", o.agent), zap.Error(err))
		return nil, err
	}
	var left []Orphan
	for _, doc := range list {
		if resolve != nil {
			upd, gone, rerr := resolve(ctx, doc)
			switch {
			case rerr != nil:
				o.logger.Debug("orphan lookup failed", zap.String("agent", o.agent), zap.String("thread_id", doc.ThreadID), zap.Error(rerr))
			case gone:
				if err := o.st.Delete(ctx, doc.name); err == nil {
					continue
				}
			default:
				upd.name = doc.name
				upd.CheckedAt = time.Now().UTC().Format(backend.TimeFormat)
				_ = o.st.Put(ctx, doc.name, upd)
				doc = upd
			}
		}
		left = append(left, doc)
	}
	setOrphans(o.agent, len(left))
	if len(left) > 0 {
		var threads, records, windows []string
		for _, d := range left {
			switch {
			case len(threads)+len(records)+len(windows) >= maxListedOrphans:
			case d.ThreadID != "":
				threads = append(threads, d.ThreadID)
			case d.ProofRecordID != "":
				records = append(records, d.ProofRecordID)
			default:
				windows = append(windows, d.OrgID+" "+d.Since+"/"+d.Until)
			}
		}
		o.logger.Warn("orphaned proof requests at the agent: no client has their invitation, and they could not be removed",
			zap.String("agent", o.agent), zap.Int("count", len(left)),
			zap.Strings("thread_ids", threads), zap.Strings("proof_record_ids", records), zap.Strings("unknown_thread_windows", windows),
			zap.String("storage", "proofgate/"+OrphanNamespace+"/"))
	}
	return left, nil
}

// Start sweeps every interval (DefaultOrphanSweep when 0 or less) in the
// background (the first sweep after one minute) until Stop.
func (o *Orphans) Start(interval time.Duration, resolve Resolve) {
	if interval <= 0 {
		interval = DefaultOrphanSweep
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	o.stop, o.done = cancel, make(chan struct{})
	go func() {
		defer close(o.done)
		t := time.NewTimer(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sctx, scancel := context.WithTimeout(ctx, interval/2)
			_, _ = o.Sweep(sctx, resolve)
			scancel()
			t.Reset(interval)
		}
	}()
}

// Stop ends the background sweeps and waits for a running one.
func (o *Orphans) Stop() {
	o.mu.Lock()
	stop, done := o.stop, o.done
	o.stop = nil
	o.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
