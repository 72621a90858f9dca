package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.uber.org/zap/zaptest"
)

// The one delivery-time check of webhooks and mails: a message that names
// a change goes out once the change is confirmed; an unconfirmed one is
// retried, then refused for good at UnconfirmedAttempts; a message with
// no change (queued by an older version) goes out unasked.
func TestConfirmCheck(t *testing.T) {
	change := Change{OrgID: "org-1", RecordID: "rec-1", State: "request-sent"}
	storageDown := errors.New("storage down")
	tests := []struct {
		name      string
		confirm   bool // a ConfirmFunc is set
		reached   bool
		err       error
		change    Change
		attempt   int
		wantErr   string // "" means send
		permanent bool
		asked     bool
	}{
		{"confirmed", true, true, nil, change, 1, "", false, true},
		{"unconfirmed, first attempt", true, false, nil, change, 1, ChangeNotStored, false, true},
		{"unconfirmed, last retry", true, false, nil, change, UnconfirmedAttempts - 1, ChangeNotStored, false, true},
		{"unconfirmed, dropped", true, false, nil, change, UnconfirmedAttempts, ChangeNotStored, true, true},
		{"check failed", true, false, storageDown, change, UnconfirmedAttempts, "storage", false, true},
		{"older message, no change", true, false, nil, Change{}, 1, "", false, false},
		{"older message, org only", true, false, nil, Change{OrgID: "org-1"}, 1, "", false, false},
		{"nothing to ask", false, false, nil, change, 1, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []Change
			var confirm ConfirmFunc
			if tt.confirm {
				confirm = func(_ context.Context, org, rec, state string) (bool, error) {
					asked = append(asked, Change{OrgID: org, RecordID: rec, State: state})
					return tt.reached, tt.err
				}
			}
			e := Entry{ID: "m-1", Kind: "email", Message: json.RawMessage(`{}`), Attempt: tt.attempt}
			err := confirm.Check(context.Background(), e, tt.change, zaptest.NewLogger(t))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil (send)", err)
				}
			} else {
				var f *Failure
				if !errors.As(err, &f) || f.Public != tt.wantErr || f.Permanent != tt.permanent {
					t.Fatalf("Check = %#v, want %q permanent=%v", err, tt.wantErr, tt.permanent)
				}
				if tt.err != nil && !errors.Is(err, tt.err) {
					t.Fatalf("Check = %v does not wrap the check's error", err)
				}
			}
			if (len(asked) > 0) != tt.asked || tt.asked && asked[0] != tt.change {
				t.Fatalf("asked %+v", asked)
			}
		})
	}
}
