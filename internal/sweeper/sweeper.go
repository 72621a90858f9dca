// Package sweeper removes what has outlived its retention (finished proof
// records with their keys, expired short URLs) and expires what has
// waited too long (invitations nobody answered). One pass runs at a time
// across instances sharing a storage (a storage lock), and each task
// looks at a bounded number of documents per pass, continuing where it
// stopped on the next, so a large store costs steady, small work.
package sweeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/store"
)

// Defaults of Options.
const (
	DefaultInterval = 10 * time.Minute
	DefaultBudget   = 500
	// DefaultTaskTimeout bounds one task's run in a pass.
	DefaultTaskTimeout = 5 * time.Minute
	// firstPass is the wait before the first pass after Start.
	firstPass = 30 * time.Second
)

// Task is one kind of clean-up. Run looks at no more than budget documents
// and returns how many things it removed or expired, by name ("records",
// "short_urls", "invitations_expired").
type Task struct {
	Name string
	Run  func(ctx context.Context, now time.Time, budget int) (map[string]int, error)
}

// Options configure a Sweeper.
type Options struct {
	// Interval between passes.
	Interval time.Duration
	// Budget is how many documents each task may look at per pass.
	Budget int
	// TaskTimeout bounds one task's run: a task stuck on one document (a
	// record lock that is never released) ends there, so the pass, and
	// the lock every instance's passes share, are given up in time. The
	// task's cursor has moved past what it was handed, so the next pass
	// goes on after it.
	TaskTimeout time.Duration
	Logger      *zap.Logger
	// OnRemoved hears of every pass's counts (metrics).
	OnRemoved func(what string, n int)
	Now       func() time.Time
}

// Sweeper runs the tasks periodically.
type Sweeper struct {
	storage certmagic.Storage
	tasks   []Task
	opts    Options

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// LockName is the storage lock a pass holds.
const LockName = store.Prefix + "/locks/sweeper"

// New returns a sweeper of tasks, locking in storage.
func New(storage certmagic.Storage, tasks []Task, opts Options) *Sweeper {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.TaskTimeout <= 0 {
		opts.TaskTimeout = DefaultTaskTimeout
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Sweeper{storage: storage, tasks: tasks, opts: opts}
}

// Start runs passes in the background until Stop.
func (s *Sweeper) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go s.loop(ctx, s.done)
}

// Stop ends the background passes and waits for a pass in progress.
func (s *Sweeper) Stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (s *Sweeper) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTimer(min(firstPass, s.opts.Interval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.Pass(ctx); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("sweeper: pass failed", zap.Error(err))
		}
		t.Reset(s.opts.Interval)
	}
}

// ErrBusy means another instance is sweeping.
var ErrBusy = errors.New("sweeper: another pass holds the lock")

// Pass runs every task once under the storage lock and returns what was
// removed. With the lock held elsewhere it does nothing (ErrBusy).
func (s *Sweeper) Pass(ctx context.Context) (map[string]int, error) {
	locked, err := tryLock(ctx, s.storage, LockName)
	if err != nil {
		return nil, err
	}
	if !locked {
		return nil, ErrBusy
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.storage.Unlock(uctx, LockName)
	}()
	total := map[string]int{}
	var errs []error
	now := s.opts.Now()
	for _, task := range s.tasks {
		tctx, cancel := context.WithTimeout(ctx, s.opts.TaskTimeout)
		counts, err := task.Run(tctx, now, s.opts.Budget)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", task.Name, err))
		}
		for what, n := range counts {
			total[what] += n
			if n > 0 && s.opts.OnRemoved != nil {
				s.opts.OnRemoved(what, n)
			}
		}
	}
	if len(total) > 0 {
		fields := make([]zap.Field, 0, len(total))
		for what, n := range total {
			fields = append(fields, zap.Int(what, n))
		}
		s.opts.Logger.Info("sweeper: pass done", fields...)
	}
	return total, errors.Join(errs...)
}

func tryLock(ctx context.Context, storage certmagic.Storage, name string) (bool, error) {
	if tl, ok := storage.(certmagic.TryLocker); ok {
		return tl.TryLock(ctx, name)
	}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := storage.Lock(lctx, name); err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Lister is what a Cursor walks: a store.Store, or anything else that
// names what it holds.
type Lister interface {
	List(ctx context.Context) ([]string, error)
}

// Cursor walks the names of a store a bounded slice at a time, resuming
// after the last name it handed out.
type Cursor struct {
	mu   sync.Mutex
	last string
}

// Next returns up to n names of st that sort after the cursor, wrapping
// around at the end.
func (c *Cursor) Next(ctx context.Context, st Lister, n int) ([]string, error) {
	names, err := st.List(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	c.mu.Lock()
	defer c.mu.Unlock()
	start := 0
	for start < len(names) && names[start] <= c.last {
		start++
	}
	if start == len(names) {
		start, c.last = 0, ""
	}
	end := min(start+n, len(names))
	out := names[start:end]
	if len(out) > 0 {
		c.last = out[len(out)-1]
	}
	if end == len(names) {
		c.last = ""
	}
	return out, nil
}
