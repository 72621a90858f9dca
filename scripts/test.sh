#!/usr/bin/env bash
# Runs every test of proofgate, with the real servers they need: it installs
# ACA-Py (from PyPI, into a virtualenv) for the upstream tests, then runs
# go test over every package. Usage: scripts/test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

# ACA-Py: a PROOFGATE_ACAPY you set is used as is. Otherwise .ci/acapy-venv.sh
# installs acapy-agent (it needs Python >= 3.12); where it cannot, the ACA-Py
# tests skip with one line saying why (PROOFGATE_ACAPY_SKIP), and everything
# else still runs.
if [ -z "${PROOFGATE_ACAPY:-}" ] && [ -f .ci/acapy-venv.sh ]; then
	set +e
	acapy_out=$(bash .ci/acapy-venv.sh 2>/tmp/proofgate-acapy-venv.$$)
	acapy_rc=$?
	set -e
	if [ "$acapy_rc" -eq 0 ]; then
		PROOFGATE_ACAPY=$(printf '%s\n' "$acapy_out" | tail -n 1)
		export PROOFGATE_ACAPY
	else
		# Exit 3: no Python >= 3.12, and the script said so in a "skip:" line.
		# Anything else: the install failed; its output explains why.
		[ "$acapy_rc" -eq 3 ] || cat /tmp/proofgate-acapy-venv.$$ >&2
		PROOFGATE_ACAPY_SKIP=$(grep '^skip: ' /tmp/proofgate-acapy-venv.$$ | head -n 1 | cut -c7-)
		if [ -z "$PROOFGATE_ACAPY_SKIP" ]; then
			PROOFGATE_ACAPY_SKIP="ACA-Py tests skipped: installing it with .ci/acapy-venv.sh failed (exit $acapy_rc, output above)"
		fi
		export PROOFGATE_ACAPY_SKIP
		echo "$PROOFGATE_ACAPY_SKIP" >&2
	fi
	rm -f /tmp/proofgate-acapy-venv.$$
fi

go test -count=1 "$@" ./...
