#!/usr/bin/env bash
# An independent load run, outside the bench: the built binary on
# examples/Caddyfile as shipped (port 8080, the demo key, storage in a
# temporary directory), a plain Caddy with `respond` beside it, and wrk
# (Debian's package) against both, with the bench's load shape (one wrk
# thread, 16 connections, a warm-up before each measurement) but none of
# its code. The durable-write ceiling of the data directory is the bench's
# own definition (16 writers: a temporary file written, fsynced, renamed
# to a new name, as a created record is; `bench -role durable`), since it
# is a property of the disk that the create's ratio must be taken against
# alike. It prints, per round, the req/s of respond, the 401, the 400, a
# local create and durable writes, then the medians of the three ratios
# the bench reports as ratio_unauthorized_vs_respond,
# ratio_bad_request_vs_respond and ratio_local_create_vs_durable_write.
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
go build -o "$tmp/bench" ./bench
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
rps() { wrk -t1 -c16 -d1s "$@" >/dev/null; wrk -t1 -c16 -d"${secs}s" "$@" | awk '/Requests\/sec/ {print $2}'; }
# One create first, so that the durable writes are of a record's size.
curl -fs -o /dev/null -X POST -H 'Content-Type: application/json' -H "X-API-Key: $key" -d "$create" "$url"
# A single instance keeps its records in the record journal: the record is
# the line less its {"id":"<36>","v":1,"doc": prefix (57 bytes) and its
# closing brace and newline.
line=$(head -n 1 "$tmp"/data/proofgate/records-journal/*.jsonl 2>/dev/null | wc -c)
size=$(( line > 59 ? line - 59 : 2048 ))
durable() { "$tmp/bench" -role durable -c 16 -duration "${secs}s" "$tmp/data/durable-$1" "${size:-2048}"; }
: >"$tmp/rounds"
for r in $(seq "$rounds"); do
	resp=$(rps http://127.0.0.1:9091/)
	unauth=$(BODY=$create KEY= rps -s "$tmp/post.lua" "$url")
	badreq=$(BODY=$bad KEY=$key rps -s "$tmp/post.lua" "$url")
	resp2=$(rps http://127.0.0.1:9091/)
	disk=$(durable "$r")
	made=$(BODY=$create KEY=$key rps -s "$tmp/post.lua" "$url")
	disk2=$(durable "$r")
	awk -v r="$r" -v a="$resp" -v a2="$resp2" -v u="$unauth" -v b="$badreq" -v c="$made" -v d="$disk" -v d2="$disk2" 'BEGIN {
		a = (a + a2) / 2; d = (d + d2) / 2
		printf "round %d: respond %.0f/s, 401 %.0f/s (%.2f), 400 %.0f/s (%.2f), local create %.0f/s, durable writes %.0f/s (%.2f)\n", r, a, u, u/a, b, b/a, c, d, c/d
		printf "%f %f %f\n", u/a, b/a, c/d >> "'"$tmp/rounds"'" }'
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf 'medians: ratio_unauthorized_vs_respond %.2f, ratio_bad_request_vs_respond %.2f, ratio_local_create_vs_durable_write %.2f\n' \
	"$(cut -d' ' -f1 "$tmp/rounds" | median)" "$(cut -d' ' -f2 "$tmp/rounds" | median)" "$(cut -d' ' -f3 "$tmp/rounds" | median)"
