package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/proofgate/proofgate"
)

// Keys and orgs of the bench's config.
const (
	benchKey  = "bench-key-0123456789abcdef"
	orgLocal  = "0f8fad5b-d9cb-469f-a165-70867728950e"
	orgCredo  = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	orgACAPy  = "9b2d7b0e-2f5c-4c8a-9d5e-2b1f3c4d5e6f"
	credoJWT  = "stub-agent-jwt"
	acapyKey  = "stub-admin-key"
	serverLog = "server.log"
)

// ports are the sites of the server and the stub agent.
type ports struct {
	respond, proxy, local, credo, acapy, stub int
	// floor is the bench's floor handler: the 400's answer, after reading
	// the body, with no other work (floor.go).
	floor int
	// createFloor reads a create's body, makes one durable write and
	// sends a create's answer, with no other work (createfloor.go).
	createFloor int
}

// caddyfile is the server's config. The local site is examples/Caddyfile
// with other values; logging is Caddy's default (info, to the server's
// stderr, which the bench writes to a file as an operator would).
// admin is Caddy's admin address ("off" by default; set -admin to take
// profiles from /debug/pprof during a run). requestLog is how the request
// log is configured: "sampled" (README's production setting, as
// examples/Caddyfile does: proofgate's request_log sampling keeps the first
// 10 lines a second, then 1 in 100), "caddy-sampled" (the same numbers in
// Caddy's sampling of its default log, which every line reaches), "all"
// (one line per request), or "off" (excluded), to measure what it costs.
func caddyfile(data, admin, requestLog, createFloorAnswer string, p ports) string {
	logOpt, siteLog := "", ""
	switch requestLog {
	case "sampled":
		siteLog = `
		request_log {
			sampling {
				interval 1s
				first 10
				thereafter 100
			}
		}`
	case "caddy-sampled":
		logOpt = `
	log default {
		sampling {
			interval 1s
			first 10
			thereafter 100
		}
	}`
	case "off":
		logOpt = `
	log default {
		exclude http.handlers.proofgate.requests
	}`
	}
	return strings.ReplaceAll(fmt.Sprintf(`{
	admin %[14]s
	storage file_system %[1]s
	persist_config off%[15]s
}

http://127.0.0.1:%[2]d {
	respond "ok" 200
}

http://127.0.0.1:%[16]d {
	bench_floor
	respond "ok" 200
}

http://127.0.0.1:%[17]d {
	route {
		bench_create_floor {
			answer_file %[18]s
		}
	}
}

http://127.0.0.1:%[3]d {
	reverse_proxy 127.0.0.1:%[7]d
}

http://127.0.0.1:%[4]d {
	proofgate {
		backend local local {
			public_url http://127.0.0.1:%[4]d
		}
		auth {
			api_key %[8]s org %[9]s
		}
	}
	respond "ok" 200
}

http://127.0.0.1:%[5]d {
	proofgate {
		backend agent credo {
			url http://127.0.0.1:%[7]d
			token %[10]s
		}
		auth {
			api_key %[8]s org %[11]s
		}
	}
	respond "ok" 200
}

http://127.0.0.1:%[6]d {
	proofgate {
		backend agent acapy {
			url http://127.0.0.1:%[7]d
			api_key %[12]s
		}
		auth {
			api_key %[8]s org %[13]s
		}
	}
	respond "ok" 200
}
`, data, p.respond, p.proxy, p.local, p.credo, p.acapy, p.stub,
		benchKey, orgLocal, credoJWT, orgCredo, acapyKey, orgACAPy, admin, logOpt, p.floor,
		p.createFloor, createFloorAnswer), "\tproofgate {", "\tproofgate {"+siteLog)
}

// serve is the server role: it runs Caddy with the Caddyfile named by
// args[0] until it is told to stop.
func serve(args []string) error {
	if len(args) != 1 {
		return errors.New("server: want the Caddyfile's path")
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": args[0]})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "caddyfile:", w.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	return caddy.Stop()
}
