package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestClientGoneIsNotAServerError: a backend that stops because the
// client went away (its request's context canceled) answers 499, Client
// Closed Request, as Caddy's reverse_proxy and nginx do, logged at debug:
// it is no fault of the server's, and no one reads the answer. Anything
// untyped is still an internal error.
func TestClientGoneIsNotAServerError(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		status    int
		wantLevel zapcore.Level // the one entry's level
	}{
		{"canceled", context.Canceled, 499, zapcore.DebugLevel},
		// credo: the record read-back after the create fails with the
		// caller's cancellation, wrapped as an orphan.
		{"canceled, wrapped", fmt.Errorf("the agent created proof request thread t but its record could not be read: %w", context.Canceled), 499, zapcore.DebugLevel},
		{"untyped", errors.New("disk on fire"), 500, zapcore.ErrorLevel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			w := httptest.NewRecorder()
			writeBackendError(w, nil, zap.New(core), "", tc.err)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), fmt.Sprintf(`"statusCode":%d`, tc.status)) {
				t.Fatalf("%d %s; want %d", w.Code, w.Body, tc.status)
			}
			entries := logs.All()
			if len(entries) != 1 || entries[0].Level != tc.wantLevel {
				t.Fatalf("logged %v; want one entry at %v", entries, tc.wantLevel)
			}
		})
	}
}
