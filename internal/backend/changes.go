package backend

import (
	"context"

	"github.com/google/uuid"
)

// StateChange is one state change of a proof record: a creation
// (PreviousState "") or a transition.
type StateChange struct {
	// ID identifies the change; the same change reported again (a retried
	// delivery, a re-staged transition) has the same ID. It becomes the
	// event's id and webhook-id.
	ID string
	// PreviousState is the record's state before ("" for a new record).
	PreviousState string
	// Record is the record after the change.
	Record ProofRecord
}

// ChangeSink hears of state changes: webhooks and Caddy events. Stage is
// called before the change is stored and makes what must be delivered
// about it durable; then exactly one of Commit (the change was stored) or
// Abort (it was not) follows.
type ChangeSink interface {
	Stage(ctx context.Context, c StateChange) (Staged, error)
}

// Staged is a change's notifications, staged and waiting for the outcome
// of the change's own write.
type Staged interface {
	// Commit releases them: the change was stored.
	Commit()
	// Abort withdraws them (best effort): the change was not stored.
	Abort(ctx context.Context)
}

// ChangeReporter is implemented by backends that report their records'
// state changes themselves (the local verifier: every transition). The
// gateway reports, for other backends, the changes it causes (creation,
// accept) and observes (a read that shows a new state).
type ChangeReporter interface {
	SetChangeSink(ChangeSink)
}

// RecordReader is implemented by backends that can return a proof record
// (GET /proofs/{id}).
type RecordReader interface {
	GetProofRecord(ctx context.Context, org Org, proofRecordID string) (ProofRecord, error)
}

// NopStaged is a Staged with nothing to release or withdraw.
type NopStaged struct{}

// Commit implements Staged.
func (NopStaged) Commit() {}

// Abort implements Staged.
func (NopStaged) Abort(context.Context) {}

// changeNamespace scopes the name-based ids of state changes.
var changeNamespace = uuid.MustParse("5b0e3f0c-4a53-4c5e-9d0f-6f1f3c0a7e21")

// ChangeID is the id of the change that brought record into state. A
// verifier record reaches each state at most once, so (record, state)
// names the change: the same change reported twice (a retry, a restaged
// write) keeps its id, and receivers can deduplicate on it.
func ChangeID(recordID, state string) string {
	return uuid.NewSHA1(changeNamespace, []byte(recordID+"/"+state)).String()
}

// ChangeConfirmer is implemented by backends that report their own
// changes: Reached tells whether a record has really been in a state, so
// a notification staged before a write that never happened (the process
// died between the two) is not sent.
type ChangeConfirmer interface {
	Reached(ctx context.Context, proofRecordID, state string) (bool, error)
}
