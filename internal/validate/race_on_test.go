//go:build race

package validate

// raceEnabled: under the race detector, sync.Pool drops a quarter of what
// is put back, on purpose, so pooled state (regexp's backtracker among
// it) is allocated again and allocation bounds do not hold.
const raceEnabled = true
