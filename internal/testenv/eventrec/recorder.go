// Package eventrec is a Caddy events handler for tests
// (events.handlers.proofgate_recorder): it records every event it is
// subscribed to, so a test config can subscribe it like exec.
package eventrec

import (
	"context"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func init() {
	caddy.RegisterModule(Recorder{})
}

// Event is one recorded event.
type Event struct {
	Name string
	Data map[string]any
}

var (
	mu     sync.Mutex
	events []Event
)

// Recorded returns the events recorded so far, by every Recorder.
func Recorded() []Event {
	mu.Lock()
	defer mu.Unlock()
	return append([]Event(nil), events...)
}

// Reset forgets the recorded events.
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	events = nil
}

// Recorder records events.
type Recorder struct{}

// CaddyModule returns the Caddy module information.
func (Recorder) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "events.handlers.proofgate_recorder",
		New: func() caddy.Module { return new(Recorder) },
	}
}

// Handle records e.
func (*Recorder) Handle(_ context.Context, e caddy.Event) error {
	mu.Lock()
	defer mu.Unlock()
	data := make(map[string]any, len(e.Data))
	for k, v := range e.Data {
		data[k] = v
	}
	events = append(events, Event{Name: e.Name(), Data: data})
	return nil
}

// UnmarshalCaddyfile takes no options.
func (*Recorder) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Recorder)(nil)
