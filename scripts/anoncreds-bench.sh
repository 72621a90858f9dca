#!/usr/bin/env bash
# Times verifying the typical AnonCreds proof (corpus case "typical": 2
# credentials, 5 revealed attributes, 1 predicate) with the Go verifier and,
# in the same run on the same machine, with the reference library (PyPI
# anoncreds, through scripts/anoncreds-venv.sh). Prints wall time per
# verification and CPU time per verification (user+system), which is the
# fairer number on a busy machine. N=<count> sets the iterations (default 50).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-50}"
bin=$(mktemp -d)/anoncreds.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./internal/anoncreds/
TIMEFORMAT='%U %S'
{ time (cd internal/anoncreds && "$bin" -test.run '^$' -test.bench BenchmarkVerifyTypical -test.benchtime "${n}x" >"$bin.out"); } 2>"$bin.time"
grep -E '^Benchmark' "$bin.out"
awk -v n="$n" '{printf "proofgate (Go):        CPU %.1f ms/op (user+sys over the run, setup included)\n", ($1+$2)*1000/n}' "$bin.time"
py=$(bash scripts/anoncreds-venv.sh | tail -n 1)
if [ -n "$py" ]; then
	printf 'reference anoncreds %s: ' "$("$py" -c 'import anoncreds; print(anoncreds.library_version())')"
	N="$n" "$py" scripts/anoncreds-gen/bench.py testdata/anoncreds
fi
