package agent

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"context"
	"errors"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// When the owners cannot be read, OwnedBy answers ErrUnavailable; it does
// not fall back on asking the agent (whose answer proves nothing about a
// record proofgate may have made for another org).
func TestOwnedByStorageFailsClosed(t *testing.T) {
	o := NewOwnership(brokenStorage{}, "credo http://agent", 0, nil)
	defer o.Close()
	ok, err := o.OwnedBy(context.Background(), backend.Org{ID: "a"}, "3fa85f64-5717-4562-b3fc-2c963f66afa6", func() (bool, error) {
		t.Error("the agent was asked while the owners could not be read")
		return true, nil
	})
	if ok || !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("OwnedBy = %v, %v; want false, ErrUnavailable", ok, err)
	}
}
