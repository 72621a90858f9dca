package outbox

import (
	"context"
	"errors"
	"sync"
)

// ErrNotMine is what a delivery function returns (wrapped, e.g. as a
// Failure's Err) for a message of its kind that it does not know: one of
// another configuration that shares the deliverer (two sites on one
// storage, each with its own webhooks or its own outbound policy). The
// kind's other registrations are asked then, newest first; a message none
// of them takes is a temporary failure, the newest's.
var ErrNotMine = errors.New("outbox: the message is another configuration's")

// DeliverFunc delivers one message. nil means delivered; a *Failure says
// whether the failure is permanent and what to record; any other error is
// temporary. ctx ends when the lease would; the function should not
// outlive it.
type DeliverFunc func(ctx context.Context, e Entry) error

// ResultFunc hears of each failed attempt that will be retried (state
// queued, with LastError) and of each final outcome (sent or failed). It
// runs on the worker, so it must return quickly (bound its storage writes).
// A panic in it is recovered and logged.
type ResultFunc func(e Entry, s Status)

// kind is what a deliverer does with the messages of one kind.
type kind struct {
	deliver DeliverFunc
	result  ResultFunc
}

// Handle registers the delivery function of a kind of message, and
// optionally a result function of its own (called after
// Options.OnResult), and returns what undoes the registration. The
// registrations of a kind form a stack: the newest is the one used
// (its delivery function first: one that answers ErrNotMine passes the
// message to the next);
// removing it restores the one before (a config that Caddy refused after
// its Provision must not leave its functions in charge of the config
// still running); removing an older one just drops it. Each config
// registers in Provision and removes in Cleanup; remove may be called
// more than once. A message of a kind without a registration waits (and
// is retried later), so a deliverer that outlives a config still knows
// what to do once the next config has registered its functions.
func (d *Deliverer) Handle(name string, fn DeliverFunc, result ResultFunc) (remove func()) {
	reg := &kind{deliver: fn, result: result}
	d.kmu.Lock()
	d.stacks[name] = append(d.stacks[name], reg)
	d.publishKinds()
	d.kmu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.kmu.Lock()
			defer d.kmu.Unlock()
			stack := d.stacks[name]
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] == reg {
					stack = append(stack[:i:i], stack[i+1:]...)
					break
				}
			}
			if len(stack) == 0 {
				delete(d.stacks, name)
			} else {
				d.stacks[name] = stack
			}
			d.publishKinds()
		})
	}
}

// publishKinds makes each stack its kind's functions: its delivery
// functions newest first (firstTaker), and every result function, newest
// first: each configuration sharing the deliverer hears every outcome and
// notes those of its own (a handler routes a mail's outcome by the org it
// serves). d.kmu must be held.
func (d *Deliverer) publishKinds() {
	next := make(map[string]kind, len(d.stacks))
	for name, stack := range d.stacks {
		top := *stack[len(stack)-1]
		if len(stack) > 1 {
			fns := make([]DeliverFunc, len(stack))
			var results []ResultFunc
			for i := len(stack) - 1; i >= 0; i-- {
				fns[len(stack)-1-i] = stack[i].deliver
				if stack[i].result != nil {
					results = append(results, stack[i].result)
				}
			}
			top.deliver = firstTaker(fns)
			top.result = everyResult(results)
		}
		next[name] = top
	}
	d.kinds.Store(&next)
}

// everyResult calls each of fns (nil when there is none).
func everyResult(fns []ResultFunc) ResultFunc {
	switch len(fns) {
	case 0:
		return nil
	case 1:
		return fns[0]
	}
	return func(e Entry, s Status) {
		for _, fn := range fns {
			fn(e, s)
		}
	}
}

// firstTaker delivers with the first of fns that does not answer
// ErrNotMine; when all do, the answer is the first's.
func firstTaker(fns []DeliverFunc) DeliverFunc {
	return func(ctx context.Context, e Entry) error {
		var first error
		for i, fn := range fns {
			err := fn(ctx, e)
			if !errors.Is(err, ErrNotMine) {
				return err
			}
			if i == 0 {
				first = err
			}
		}
		return first
	}
}

func (d *Deliverer) kind(name string) kind {
	if name == "" {
		name = d.opts.DefaultKind
	}
	return (*d.kinds.Load())[name]
}

func (d *Deliverer) handler(name string) DeliverFunc { return d.kind(name).deliver }
