#!/usr/bin/env bash
# Runs every test of proofgate, with the real servers they need: it installs
# ACA-Py (from PyPI, into a virtualenv) for the upstream tests, then runs
# go test over every package. Usage: scripts/test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -f .ci/acapy-venv.sh ]; then
	# Prints the aca-py executable's path on its last line.
	PROOFGATE_ACAPY=$(bash .ci/acapy-venv.sh | tail -n 1)
	export PROOFGATE_ACAPY
fi

# The AnonCreds reference (PyPI anoncreds) makes a fresh corpus, which the
# Go verifier must judge as the reference did (internal/anoncreds
# TestCorpus); skipped with one line where Python or the package is missing.
anoncreds_py=$(bash scripts/anoncreds-venv.sh | tail -n 1)
if [ -n "$anoncreds_py" ]; then
	# The reference as a wallet for integration TestAnonCredsLiveWallet.
	export PROOFGATE_ANONCREDS_PYTHON="$anoncreds_py"
	anoncreds_tmp=$(mktemp -d)
	trap 'rm -rf "$anoncreds_tmp"' EXIT
	if "$anoncreds_py" scripts/anoncreds-gen/gen.py "$anoncreds_tmp/fresh" 2>/dev/null; then
		export PROOFGATE_ANONCREDS_CORPUS="$anoncreds_tmp/fresh"
	else
		echo "anoncreds reference: the corpus generator failed, fresh corpus skipped"
	fi
	# Mutations of the committed corpus, judged by the reference (seed 1;
	# run mutate.py with other seeds to look further).
	if RATE=0.08 "$anoncreds_py" scripts/anoncreds-gen/mutate.py testdata/anoncreds "$anoncreds_tmp/mutated" 1 2>/dev/null; then
		export PROOFGATE_ANONCREDS_MUTATED="$anoncreds_tmp/mutated"
	else
		echo "anoncreds reference: the mutation generator failed, differential corpus skipped"
	fi
fi

go test -count=1 "$@" ./...
