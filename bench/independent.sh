#!/usr/bin/env bash
# An independent load run, outside the bench: the built binary on
# examples/Caddyfile as shipped (port 8080, the demo key, storage in a
# temporary directory), a plain Caddy with `respond` beside it, and wrk
# (Debian's package) against both. It prints, per round, the req/s of
# respond, the 401, the 400 and a local create, and the 401's and 400's
# ratios to respond, for comparing with `go run ./bench`.
#
#   bench/independent.sh [rounds] [seconds per measurement]
set -euo pipefail
rounds=${1:-3}
secs=${2:-5}
command -v wrk >/dev/null || { echo "independent.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/caddy" ./cmd/caddy
cat >"$tmp/respond.Caddyfile" <<'CADDY'
{
	admin off
	persist_config off
}
http://127.0.0.1:9091 {
	respond "ok" 200
}
CADDY
PROOFGATE_DATA="$tmp/data" "$tmp/caddy" run --config examples/Caddyfile >"$tmp/proofgate.log" 2>&1 &
pids+=($!)
"$tmp/caddy" run --config "$tmp/respond.Caddyfile" --adapter caddyfile >"$tmp/respond.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	curl -fs -o /dev/null http://127.0.0.1:9091/ && curl -s -o /dev/null http://127.0.0.1:8080/ && break
	sleep 0.2
done
cat >"$tmp/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
local k = os.getenv("KEY")
if k and k ~= "" then wrk.headers["X-API-Key"] = k end
LUA
url="http://127.0.0.1:8080/orgs/0f8fad5b-d9cb-469f-a165-70867728950e/proofs/oob?requestType=indy"
key=pg-demo-key-change-me-0123456789 # the demo key of examples/Caddyfile (loopback only)
create='{"isShortenUrl":false,"proofFormats":{"indy":{"name":"age","version":"1.0","requested_attributes":{"a":{"name":"name","restrictions":[{"cred_def_id":"WgWxqztrNooG92RXvxSTWv:3:CL:20:tag"}]}},"requested_predicates":{"p":{"name":"age","p_type":">=","p_value":18}}}}}'
bad='{"isShortenUrl":1,"proofFormats":{"indy":{}}}'
rps() { wrk -t2 -c16 -d"${secs}s" "$@" | awk '/Requests\/sec/ {print $2}'; }
for r in $(seq "$rounds"); do
	resp=$(rps http://127.0.0.1:9091/)
	unauth=$(BODY=$create KEY= rps -s "$tmp/post.lua" "$url")
	badreq=$(BODY=$bad KEY=$key rps -s "$tmp/post.lua" "$url")
	made=$(BODY=$create KEY=$key rps -s "$tmp/post.lua" "$url")
	awk -v r="$r" -v a="$resp" -v u="$unauth" -v b="$badreq" -v c="$made" 'BEGIN {
		printf "round %d: respond %.0f/s, 401 %.0f/s (%.2f), 400 %.0f/s (%.2f), local create %.0f/s\n", r, a, u, u/a, b, b/a, c }'
done
