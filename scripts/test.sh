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
	acapy_out=$(bash .ci/acapy-venv.sh) # logs on stderr; the path (or "skip: …") on stdout
	acapy_rc=$?
	set -e
	acapy_last=$(printf '%s\n' "$acapy_out" | tail -n 1)
	case "$acapy_rc" in
	0)
		export PROOFGATE_ACAPY="$acapy_last"
		;;
	3) # no Python >= 3.12
		export PROOFGATE_ACAPY_SKIP="${acapy_last#skip: }"
		;;
	*)
		export PROOFGATE_ACAPY_SKIP="ACA-Py tests skipped: installing it with .ci/acapy-venv.sh failed (exit $acapy_rc, see above)"
		;;
	esac
	if [ -n "${PROOFGATE_ACAPY_SKIP:-}" ]; then
		echo "$PROOFGATE_ACAPY_SKIP" >&2
	fi
fi

go test -count=1 "$@" ./...
