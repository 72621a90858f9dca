package outbox

import (
	"context"
	"errors"

	"go.uber.org/zap"
)

// Change names the state change a message announces: a record, its org,
// and the state it reached. A notification is staged before the change
// it announces is stored, so a message that carries a Change is sent
// only once a ConfirmFunc says the record has really been in that state
// (ConfirmFunc.Check): a change whose write never happened (the process
// died between the two) is not announced. The JSON names are those the
// webhook messages have always had on disk.
type Change struct {
	OrgID    string `json:"orgId,omitempty"`
	RecordID string `json:"recordId,omitempty"`
	State    string `json:"state,omitempty"`
}

// named reports whether c names a change that can be asked about:
// messages queued by versions that did not carry one have neither a
// record nor a state, and go out unasked, as they always did.
func (c Change) named() bool { return c.RecordID != "" && c.State != "" }

// ConfirmFunc tells whether a record has really been in a state (see
// backend.ChangeConfirmer). It is the one check every kind of
// notification makes before it goes out.
type ConfirmFunc func(ctx context.Context, orgID, recordID, state string) (bool, error)

// UnconfirmedAttempts is how many attempts a message for a change that is
// not (yet) stored waits before it is dropped: the change's write follows
// its staging within milliseconds, so a change still missing after this
// many retries (half a minute at the webhooks' backoff) never happened.
const UnconfirmedAttempts = 5

// ChangeNotStored is the failure text (Status.LastError) of an attempt
// whose change is not confirmed, and of the message dropped for it.
const ChangeNotStored = "change-not-stored"

// Check is what a delivery function asks before it sends a message that
// announces c. nil means send: confirm is nil (nothing can tell), c names
// no change (a message from an older version), or the record has been in
// c.State. Otherwise it returns a *Failure: temporary when the check
// itself failed ("storage") or the change is not confirmed yet, and
// permanent for an unconfirmed change from attempt UnconfirmedAttempts on,
// so the message is dropped: failed, and counted as every failed
// delivery is (outbox_deliveries_total, outcome "failed").
func (confirm ConfirmFunc) Check(ctx context.Context, e Entry, c Change, logger *zap.Logger) error {
	if confirm == nil || !c.named() {
		return nil
	}
	happened, err := confirm(ctx, c.OrgID, c.RecordID, c.State)
	if err != nil {
		return &Failure{Public: "storage", Err: err}
	}
	if happened {
		return nil
	}
	f := &Failure{Public: ChangeNotStored, Err: errors.New("the record has not been in the message's state")}
	if e.Attempt >= UnconfirmedAttempts {
		f.Permanent = true
		if logger != nil {
			// The reason, with the record: the deliverer's own line
			// ("delivery failed for good") names only the message.
			logger.Warn("outbox: dropping a message whose change was never stored",
				zap.String("message_id", e.ID), zap.String("kind", e.Kind),
				zap.String("proof_record_id", c.RecordID), zap.String("state", c.State),
				zap.Int("attempt", e.Attempt))
		}
	}
	return f
}
