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

go test -count=1 "$@" ./...
