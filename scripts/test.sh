#!/usr/bin/env bash
# Runs every test of proofgate on a clean clone, with the real parts the
# tests drive. It first installs what is missing, says what and where
# before it starts, and how long that took at the end:
#
#   Go modules  the module cache (go env GOMODCACHE): about 1 GB and several
#               minutes on a cold cache
#   ACA-Py      a virtualenv under ~/.cache/proofgate (.ci/acapy-venv.sh; needs
#               Python >= 3.12), for the tests against a real agent
#   chromium    Debian's package (apt-get, as root), for the invitation page
#               test in a real headless browser
#   Credo       a Credo holder agent (npm packages pinned in
#               internal/testenv/credo/holder, libaries_askar and libanoncreds
#               from PyPI's wheels) under ~/.cache/proofgate
#               (scripts/credo-holder.sh; needs node >= 18), for the local
#               verifier against a real Credo wallet (W3C and AnonCreds)
#
# An optional part that cannot be installed is skipped with one line saying
# what to install; the rest of the suite runs, and the exit status is that
# of the tests that ran. A PROOFGATE_ACAPY, PROOFGATE_CHROMIUM or
# PROOFGATE_CREDO_HOLDER you set is used as it is, never replaced.
#
# Usage: scripts/test.sh [go test flags]     e.g. scripts/test.sh -run Invitation -v
#
# Adding a step: write prepare_<name> (install, then export what the tests
# read) and add <name> to steps below; plan_<name> prints its line of the plan.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

export GOFLAGS="${GOFLAGS:--buildvcs=false}"
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/proofgate"

steps=(go_modules acapy anoncreds chromium credo)

say() { printf 'test.sh: %s\n' "$*" >&2; }

# --- Go modules -----------------------------------------------------------

plan_go_modules() {
	echo "Go modules    -> $(go env GOMODCACHE) (about 1 GB, several minutes on a cold cache)"
}

prepare_go_modules() {
	go mod download || {
		say "go mod download failed: the Go module proxy ($(go env GOPROXY)) must be reachable"
		exit 1
	}
}

# --- ACA-Py -------------------------------------------------------------

plan_acapy() {
	if [ -n "${PROOFGATE_ACAPY:-}" ]; then
		echo "ACA-Py        -> yours: PROOFGATE_ACAPY=$PROOFGATE_ACAPY"
	elif [ -f .ci/acapy-venv.sh ]; then
		echo "ACA-Py        -> a virtualenv under ${PROOFGATE_ACAPY_VENV:-$cache_dir} (PyPI; needs Python >= 3.12; ~2 minutes the first time)"
	fi
}

prepare_acapy() {
	# A PROOFGATE_ACAPY you set is yours: it is used as it is.
	[ -z "${PROOFGATE_ACAPY:-}" ] && [ -f .ci/acapy-venv.sh ] || return 0
	local out rc last
	# The script logs on stderr and prints, as its last stdout line, the
	# aca-py executable, or with exit 3 "skip: <why and what to install>"
	# where no suitable Python exists.
	out=$(bash .ci/acapy-venv.sh)
	rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	case "$rc" in
	0)
		PROOFGATE_ACAPY=$last
		export PROOFGATE_ACAPY
		return 0
		;;
	3)
		PROOFGATE_ACAPY_SKIP=${last#skip: }
		;;
	*)
		PROOFGATE_ACAPY_SKIP="ACA-Py tests skipped: .ci/acapy-venv.sh failed (exit $rc, see above); install Python >= 3.12 (e.g. pyenv install 3.12) or set PROOFGATE_ACAPY=/path/to/aca-py"
		;;
	esac
	export PROOFGATE_ACAPY_SKIP
	say "$PROOFGATE_ACAPY_SKIP"
}

# --- AnonCreds reference ------------------------------------------------

plan_anoncreds() {
	[ -f scripts/anoncreds-venv.sh ] &&
		echo "AnonCreds     -> the reference (PyPI anoncreds) in a virtualenv under $cache_dir, for the verifier's differential corpus"
}

prepare_anoncreds() {
	# The AnonCreds reference (PyPI anoncreds) makes a fresh corpus, which
	# the Go verifier must judge as the reference did (internal/anoncreds
	# TestCorpus); skipped with one line where Python or the package is
	# missing (the script says so on stderr).
	[ -f scripts/anoncreds-venv.sh ] || return 0
	local py
	py=$(bash scripts/anoncreds-venv.sh | tail -n 1)
	[ -n "$py" ] || return 0
	# The reference as a wallet for integration TestAnonCredsLiveWallet.
	export PROOFGATE_ANONCREDS_PYTHON="$py"
	anoncreds_tmp=$(mktemp -d)
	trap 'rm -rf "$anoncreds_tmp"' EXIT
	if "$py" scripts/anoncreds-gen/gen.py "$anoncreds_tmp/fresh" 2>/dev/null; then
		export PROOFGATE_ANONCREDS_CORPUS="$anoncreds_tmp/fresh"
	else
		say "anoncreds reference: the corpus generator failed, fresh corpus skipped"
	fi
	# Mutations of the committed corpus, judged by the reference (seed 1;
	# run mutate.py with other seeds to look further).
	if RATE=0.08 "$py" scripts/anoncreds-gen/mutate.py testdata/anoncreds "$anoncreds_tmp/mutated" 1 2>/dev/null; then
		export PROOFGATE_ANONCREDS_MUTATED="$anoncreds_tmp/mutated"
	else
		say "anoncreds reference: the mutation generator failed, differential corpus skipped"
	fi
}

# --- chromium -----------------------------------------------------------

find_chromium() {
	local c
	for c in chromium chromium-browser google-chrome-stable google-chrome; do
		if command -v "$c" >/dev/null 2>&1; then
			command -v "$c"
			return 0
		fi
	done
	return 1
}

plan_chromium() {
	if [ -n "${PROOFGATE_CHROMIUM:-}" ]; then
		echo "chromium      -> yours: PROOFGATE_CHROMIUM=$PROOFGATE_CHROMIUM"
	elif c=$(find_chromium); then
		echo "chromium      -> already installed: $c"
	else
		echo "chromium      -> Debian package chromium, via apt-get (about 300 MB; needs root)"
	fi
}

prepare_chromium() {
	[ -z "${PROOFGATE_CHROMIUM:-}" ] || return 0
	local c
	if ! c=$(find_chromium); then
		if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
			say "installing chromium with apt-get"
			if ! { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends chromium >/dev/null 2>&1 ||
				{ apt-get update -q >/dev/null 2>&1 &&
					DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends chromium >/dev/null 2>&1; }; }; then
				say "apt-get install chromium failed"
			fi
		fi
		c=$(find_chromium) || c=""
	fi
	if [ -n "$c" ]; then
		PROOFGATE_CHROMIUM=$c
		export PROOFGATE_CHROMIUM
		return 0
	fi
	PROOFGATE_CHROMIUM_SKIP="browser test skipped: no chromium; install it (as root: apt-get install chromium) or set PROOFGATE_CHROMIUM=/path/to/chromium"
	export PROOFGATE_CHROMIUM_SKIP
	say "$PROOFGATE_CHROMIUM_SKIP"
}

# --- Credo holder -------------------------------------------------------

plan_credo() {
	if [ -n "${PROOFGATE_CREDO_HOLDER:-}" ]; then
		echo "Credo holder  -> yours: PROOFGATE_CREDO_HOLDER=$PROOFGATE_CREDO_HOLDER"
	elif [ -f scripts/credo-holder.sh ]; then
		echo "Credo holder  -> npm packages, libaries_askar and libanoncreds (PyPI) under ${PROOFGATE_CREDO_HOLDER_DIR:-$cache_dir} (about 230 MB; ~30 s the first time)"
	fi
}

prepare_credo() {
	# A PROOFGATE_CREDO_HOLDER you set is yours: it is used as it is.
	[ -z "${PROOFGATE_CREDO_HOLDER:-}" ] && [ -f scripts/credo-holder.sh ] || return 0
	local out rc last
	# Like .ci/acapy-venv.sh: logs on stderr; the last stdout line is the
	# install directory, or with exit 3 "skip: <why and what to install>".
	out=$(bash scripts/credo-holder.sh)
	rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	case "$rc" in
	0)
		PROOFGATE_CREDO_HOLDER=$last
		export PROOFGATE_CREDO_HOLDER
		return 0
		;;
	3)
		PROOFGATE_CREDO_HOLDER_SKIP=${last#skip: }
		;;
	*)
		PROOFGATE_CREDO_HOLDER_SKIP="Credo holder test skipped: scripts/credo-holder.sh failed (exit $rc, see above); it needs the npm registry and PyPI, node >= 18, npm, python3 with pip and a C++ compiler; or set PROOFGATE_CREDO_HOLDER=/path/to/an/install"
		;;
	esac
	export PROOFGATE_CREDO_HOLDER_SKIP
	say "$PROOFGATE_CREDO_HOLDER_SKIP"
}

# --- run ----------------------------------------------------------------

echo "test.sh: installs what the tests need, where missing:" >&2
for s in "${steps[@]}"; do
	line=$("plan_$s")
	[ -z "$line" ] || echo "  $line" >&2
done

timings=()
prep_start=$SECONDS
for s in "${steps[@]}"; do
	t0=$SECONDS
	"prepare_$s"
	timings+=("$s $((SECONDS - t0))s")
done
prep_time=$((SECONDS - prep_start))

test_start=$SECONDS
go test -count=1 "$@" ./...
status=$?

echo "test.sh: installing took ${prep_time}s (${timings[*]}); the tests took $((SECONDS - test_start))s" >&2
exit "$status"
