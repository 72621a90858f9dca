#!/usr/bin/env bash
# Times verifying the typical AnonCreds proof (corpus case "typical": 2
# credentials, 5 revealed attributes, 1 predicate) with the Go verifier and,
# in the same run on the same machine, with the reference library (PyPI
# anoncreds, through scripts/anoncreds-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench BenchmarkVerifyTypical -benchtime "${BENCHTIME:-50x}" ./internal/anoncreds/ | grep -E '^Benchmark'
py=$(bash scripts/anoncreds-venv.sh | tail -n 1)
if [ -n "$py" ]; then
	printf 'reference anoncreds %s: ' "$("$py" -c 'import anoncreds; print(anoncreds.library_version())')"
	"$py" scripts/anoncreds-gen/bench.py testdata/anoncreds
fi
