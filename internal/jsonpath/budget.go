package jsonpath

import (
	"errors"
	"time"
)

// Default limits of one evaluation and of all evaluations of one
// presentation.
const (
	// DefaultMaxVisits is the node visits of one Budget.
	DefaultMaxVisits = 200_000
	// DefaultMaxResults caps the values one evaluation returns (and the
	// nodes one step may hold).
	DefaultMaxResults = 1_000
)

// Errors of evaluation.
var (
	ErrBudget   = errors.New("jsonpath: evaluation exceeded its budget of node visits")
	ErrTooMany  = errors.New("jsonpath: evaluation selected too many values")
	ErrDeadline = errors.New("jsonpath: evaluation ran past its deadline")
)

// Budget is the work one or more evaluations may do. It is not safe for
// concurrent use: one presentation, one goroutine.
type Budget struct {
	visits     int
	maxResults int
	deadline   time.Time
	tick       int
}

// NewBudget returns a budget of maxVisits node visits (DefaultMaxVisits
// when <= 0), at most maxResults values per evaluation (DefaultMaxResults
// when <= 0), until deadline (none when zero).
func NewBudget(maxVisits, maxResults int, deadline time.Time) *Budget {
	if maxVisits <= 0 {
		maxVisits = DefaultMaxVisits
	}
	if maxResults <= 0 {
		maxResults = DefaultMaxResults
	}
	return &Budget{visits: maxVisits, maxResults: maxResults, deadline: deadline}
}

// Remaining is the node visits left.
func (b *Budget) Remaining() int { return b.visits }

// visit spends one node visit; the clock is read every 1024 visits.
func (b *Budget) visit() error {
	if b.visits <= 0 {
		return ErrBudget
	}
	b.visits--
	b.tick++
	if b.tick&1023 == 0 && !b.deadline.IsZero() && time.Now().After(b.deadline) {
		b.visits = 0
		return ErrDeadline
	}
	return nil
}
