package agent

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestStartChecksLogsOneLinePerOrg(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	orgs := []backend.Org{{ID: "good"}, {ID: "bad", Tenant: "t-1"}}
	c := StartChecks(zap.New(core), "credo http://agent", orgs, func(_ context.Context, org backend.Org) error {
		if org.ID == "bad" {
			return errors.New("the agent has no tenant t-1")
		}
		return nil
	})
	c.Wait()
	errs := logs.FilterMessage("org check at load: the agent has no tenant t-1").All()
	if len(errs) != 1 || errs[0].Level != zapcore.ErrorLevel || errs[0].ContextMap()["org"] != "bad" || errs[0].ContextMap()["tenant"] != "t-1" {
		t.Errorf("error line: %+v", logs.All())
	}
	if ok := logs.FilterMessage("agent serves the org").All(); len(ok) != 1 || ok[0].ContextMap()["org"] != "good" {
		t.Errorf("info line: %+v", logs.All())
	}
	c.Stop() // stopping after the end is harmless
}

func TestStopEndsChecksQuietly(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	c := StartChecks(zap.New(core), "acapy", []backend.Org{{ID: "o"}}, func(ctx context.Context, _ backend.Org) error {
		<-ctx.Done()
		return ctx.Err()
	})
	c.Stop()
	if n := logs.Len(); n != 0 {
		t.Errorf("a stopped check logged %d lines: %+v", n, logs.All())
	}
	var nilChecks *Checks
	nilChecks.Stop()
}
