package mail

import "time"

// Backlog reports the messages that wait for delivery (queued, retrying
// or being sent) and when the oldest of them was queued (zero when none
// waits), for the outbox metrics.
func (d *Deliverer) Backlog() (int, time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var oldest time.Time
	for _, at := range d.waiting {
		if oldest.IsZero() || at.Before(oldest) {
			oldest = at
		}
	}
	return len(d.waiting), oldest
}
