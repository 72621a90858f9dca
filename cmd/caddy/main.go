// Command caddy is Caddy with proofgate built in: the same main.go that
// `xcaddy build --with github.com/proofgate/proofgate` generates, kept here so
// `go run ./cmd/caddy` works without xcaddy.
package main

import (
	_ "time/tzdata"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/proofgate/proofgate"
)

func main() {
	caddycmd.Main()
}
