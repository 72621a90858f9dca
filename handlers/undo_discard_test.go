package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/internal/auth"
	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/validate"
)

// discardAnswers is failsThird whose discards get the create's whole
// result, invitation included, and answer err.
type discardAnswers struct {
	failsThird
	err  error
	oobs []string
}

func (d *discardAnswers) SendOutOfBandRequest(ctx context.Context, org backend.Org, req backend.OOBRequest) (backend.OOBResult, error) {
	res, err := d.failsThird.SendOutOfBandRequest(ctx, org, req)
	res.OutOfBandID = fmt.Sprintf("invitation-%d", d.made)
	return res, err
}

func (d *discardAnswers) DiscardRecord(ctx context.Context, org backend.Org, created backend.OOBResult) error {
	d.oobs = append(d.oobs, created.OutOfBandID)
	return d.err
}

// TestUndoDiscardOutcome: undo hands each discard what its create
// returned (the invitation, which agents keep as a record of its own), and
// logs the outcome: a backend that cannot discard there (ErrUnsupported)
// is the known case of an agent that keeps the record, a warning; any
// other failure is an error.
func TestUndoDiscardOutcome(t *testing.T) {
	for _, tt := range []struct {
		name  string
		err   error
		level zapcore.Level
		says  string
	}{
		{"cannot", fmt.Errorf("no route: %w", errors.ErrUnsupported), zapcore.WarnLevel, "the agent keeps the record of a failed request"},
		{"failed", fmt.Errorf("%w: the agent is down", backend.ErrUnavailable), zapcore.ErrorLevel, "discarding the record of a failed request"},
		{"done", nil, zapcore.WarnLevel, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.WarnLevel)
			v, _ := validate.New(validate.Options{})
			b := &discardAnswers{failsThird: failsThird{steps: &steps{}}, err: tt.err}
			g := &Gateway{Logger: zap.New(core), Auth: auth.Chain{nobodyProvider{}}, AllowedRoles: []string{"admin"},
				Validator: v, Backends: oneBackend{b}, MaxBodySize: 1 << 20, Mail: &mailRecorder{}}
			failThreeRecipients(t, g)
			if got := strings.Join(b.oobs, ","); got != "invitation-2,invitation-1" {
				t.Errorf("discards were given invitations %q, want the two creates', newest first", got)
			}
			var said []string
			for _, e := range logs.All() {
				if strings.Contains(e.Message, "failed request") {
					said = append(said, e.Level.String()+": "+e.Message)
					if e.Level != tt.level || !strings.Contains(e.Message, tt.says) {
						t.Errorf("logged %s %q, want %s %q", e.Level, e.Message, tt.level, tt.says)
					}
				}
			}
			want := 2
			if tt.says == "" {
				want = 0
			}
			if len(said) != want {
				t.Errorf("logged %v, want %d lines", said, want)
			}
		})
	}
}
