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
		echo "anoncreds reference: the corpus generator failed, fresh corpus skipped" >&2
	fi
	# Mutations of the committed corpus, judged by the reference (seed 1;
	# run mutate.py with other seeds to look further).
	if RATE=0.08 "$anoncreds_py" scripts/anoncreds-gen/mutate.py testdata/anoncreds "$anoncreds_tmp/mutated" 1 2>/dev/null; then
		export PROOFGATE_ANONCREDS_MUTATED="$anoncreds_tmp/mutated"
	else
		echo "anoncreds reference: the mutation generator failed, differential corpus skipped" >&2
	fi
fi

go test -count=1 "$@" ./...
