package backend

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound means the proof record does not exist (HTTP 404).
var ErrNotFound = errors.New("proof record not found")

// ErrTimeout means the upstream agent did not answer in time (HTTP 504).
var ErrTimeout = errors.New("upstream agent timed out")

// ErrUnavailable means storage or the upstream agent cannot be reached
// (HTTP 503).
var ErrUnavailable = errors.New("backend unavailable")

// ConflictError means the record is not in a state that allows the
// operation (HTTP 409). State names the state it is in.
type ConflictError struct {
	State string
	// Unmet names what the record's presentation lacks to answer its
	// request, when the backend checked it and found the record past
	// presentation-received: a credo record its agent accepted on its
	// own (autoAcceptProof always), which Credo does not hold to its
	// definition. Empty otherwise.
	Unmet []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("proof record is in state %q", e.State)
}

// UnmetRequestError means the presentation of a record does not answer
// its proof request, so it is not accepted (HTTP 409). A backend returns
// it when it checked the presentation itself, where its agent would have
// accepted it (Credo does not enforce a presentation definition's
// constraints). Problems name what is unmet, as the local verifier names
// them.
type UnmetRequestError struct {
	Problems []string
}

func (e *UnmetRequestError) Error() string {
	return "the presentation does not answer the proof request: " + strings.Join(e.Problems, "; ")
}

// UpstreamError means the upstream agent answered badly (HTTP 502). Status
// is the agent's HTTP status; Message is safe to show to the client.
type UpstreamError struct {
	Status  int
	Message string
}

func (e *UpstreamError) Error() string {
	return fmt.Sprintf("upstream agent answered %d: %s", e.Status, e.Message)
}

// UnsupportedError means the request asks for something the org's backend
// cannot do (present-proof 1.0 on ACA-Py, for instance). Field is the
// request field at fault, named as the caller wrote it (see fieldpath.go);
// the handler answers 400 with "Field: Message", and one problem of the
// same kind for each of More: every field a backend refuses is named at
// once, as the validator names every problem.
type UnsupportedError struct {
	Field   string
	Message string
	More    []UnsupportedError
}

func (e *UnsupportedError) Error() string { return strings.Join(e.Problems(), "; ") }

// Problems are the refusals as "Field: Message", the first one first.
func (e *UnsupportedError) Problems() []string {
	out := make([]string, 0, 1+len(e.More))
	out = append(out, e.Field+": "+e.Message)
	for _, m := range e.More {
		out = append(out, m.Field+": "+m.Message)
	}
	return out
}

// Unsupported is the error of refusals, the first with the others as
// More; nil when there are none.
func Unsupported(refusals []UnsupportedError) *UnsupportedError {
	if len(refusals) == 0 {
		return nil
	}
	first := refusals[0]
	first.More = refusals[1:]
	return &first
}
