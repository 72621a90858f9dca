package caddyfile

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/proofgate/proofgate/internal/config"
)

func TestParseRequestLog(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		want        config.LogSampling
		err         string
	}{
		{
			name:  "sampling",
			block: "sampling {\n interval 2s\n first 100\n thereafter 10\n}",
			want:  config.LogSampling{Interval: caddy.Duration(2 * time.Second), First: 100, Thereafter: 10},
		},
		{name: "sampling twice", block: "sampling {\n first 1\n}\nsampling {\n first 2\n}", err: "request_log: cannot re-declare sampling"},
		// A second would silently replace the first, as it once did.
		{name: "first twice", block: "sampling {\n first 100\n thereafter 10\n first 1\n}", err: "request_log sampling: cannot re-declare first"},
		{name: "thereafter twice", block: "sampling {\n thereafter 10\n thereafter 0\n}", err: "request_log sampling: cannot re-declare thereafter"},
		{name: "interval twice", block: "sampling {\n interval 1s\n interval 1m\n}", err: "request_log sampling: cannot re-declare interval"},
		{name: "zero interval", block: "sampling {\n interval 0\n}", err: "is not a positive duration"},
		{name: "unknown", block: "sampling {\n last 1\n}", err: `unrecognized option "last"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c config.Config
			err := Parse(caddyfile.NewTestDispenser("proofgate {\nrequest_log {\n"+tc.block+"\n}\n}"), &c)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.RequestLog == nil || c.RequestLog.Sampling == nil || *c.RequestLog.Sampling != tc.want {
				t.Fatalf("got %+v, want sampling %+v", c.RequestLog, tc.want)
			}
		})
	}
}
