#!/usr/bin/env bash
# Installs a real ACA-Py from PyPI into a virtualenv for the Go tests that run
# agents (internal/testenv/acapy and everything using it), and prints the path
# of its `aca-py` executable as the only line on stdout.
#
#   export PROOFGATE_ACAPY="$(bash .ci/acapy-venv.sh)"          # acapy-agent 1.4.0 (the tested target)
#   export PROOFGATE_ACAPY_0_12="$(bash .ci/acapy-venv.sh 0.12)" # aries-cloudagent 0.12.8 (optional, end of life)
#
# Idempotent: a stamp file records the interpreter and the pinned package set;
# when both match, nothing is downloaded and the script returns at once.
#
# Targets:
#   1.4 (default) acapy-agent 1.4.0, the newest release PyPI serves (checked with
#       `pip index versions acapy-agent`). It needs Python >= 3.12: Debian's python3
#       is 3.11, so the script looks for pyenv's 3.12/3.13 too.
#   0.12          aries-cloudagent 0.12.8, end of life, on Python 3.9-3.11; kept as a
#                 second target because deployed agents still run it.
#
# Exit status 3, with one line on stdout that starts with "skip: ", means no
# suitable Python was found: the caller skips the ACA-Py tests (scripts/test.sh
# does) instead of failing the suite. Any other failure is a real error. What
# the script does is logged on stderr.
#
# Environment:
#   PROOFGATE_ACAPY_VENV    virtualenv directory of the 1.4 target (default:
#                           ${XDG_CACHE_HOME:-$HOME/.cache}/proofgate/acapy-1.4.0: one directory
#                           per version, so that checkouts pinning different versions never
#                           rebuild each other's)
#   PROOFGATE_ACAPY_PYTHON  interpreter to build it with (default: the first of python3.13,
#                           python3.12, python3, and pyenv's 3.13.*/3.12.* that is new enough)
set -euo pipefail

target="${1:-1.4}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/proofgate"

log() { printf 'acapy-venv: %s\n' "$*" >&2; }

case "$target" in
1.4)
	acapy_version=1.4.0
	package="acapy-agent==${acapy_version}"
	venv="${PROOFGATE_ACAPY_VENV:-$cache/acapy-${acapy_version}}"
	py_min=12 py_max=99
	# Every package pinned to the set that was installed and run here, so that a
	# new release of a transitive dependency cannot break CI on a fresh machine.
	constraints="acapy-agent==${acapy_version}
aiohappyeyeballs==2.7.1
aiohttp-apispec-acapy==3.0.3
aiohttp-cors==0.8.1
aiohttp==3.13.5
aiosignal==1.4.0
annotated-types==0.8.0
anoncreds==0.2.3
apispec==6.10.1
aries_askar==0.5.0
attrs==26.1.0
base58==2.1.1
bases==0.3.0
cachetools==8.0.1
canonicaljson==2.0.0
certifi==2026.10.18
cffi==2.1.1
charset-normalizer==3.5.2
ConfigArgParse==1.7.7
cryptography==50.0.2
cytoolz==1.2.0
deepmerge==2.1.0
did-peer-2==0.1.2
did-peer-4==0.1.4
did-webvh==1.0.1
eth-hash==0.8.0
eth-typing==6.0.0
eth-utils==6.0.0
frozendict==2.5.1
frozenlist==1.8.0
idna==3.20
indy-credx==1.1.1
indy-vdr==0.4.2
inflection==0.5.1
Jinja2==3.1.6
jsoncanon==0.2.4
jsonpath-ng==1.16.0
jwcrypto==1.6.1
lxml==6.1.3
Markdown==3.10.3
MarkupSafe==3.0.4
marshmallow==3.26.2
multidict==6.9.1
multiformats-config==0.3.1
multiformats==0.3.1.post4
nest-asyncio==1.6.0
packaging==25.0
pillow==13.0.0
portalocker==3.2.0
prompt_toolkit==3.0.53
propcache==0.5.4
psycopg-binary==3.3.9
psycopg-pool==3.3.3
psycopg==3.3.9
pycparser==3.12
pydantic==2.14.3
pydantic_core==2.50.4
pydid==0.5.3
PyJWT==2.10.1
PyLD==2.0.4
PyNaCl==1.6.2
python-dateutil==2.9.0.post0
python-json-logger==3.3.0
PyYAML==6.0.3
qrcode==8.2
requests==2.32.5
rlp==4.1.0
sd-jwt==0.10.4
six==1.17.0
toolz==1.2.0
typing-inspection==0.4.5
typing-validation==1.2.12
typing_extensions==4.16.0
unflatten==0.2.0
urllib3==2.8.0
uuid_utils==0.11.1
wcwidth==0.9.4
webargs==8.7.1
yarl==1.25.1"
	;;
0.12)
	acapy_version=0.12.8
	# The askar extra is not optional: without it aca-py fails at import
	# (No module named 'anoncreds').
	package="aries-cloudagent[askar]==${acapy_version}"
	venv="$cache/acapy-${acapy_version}"
	py_min=9 py_max=11
	constraints="aiohttp==3.9.5
aiohttp-apispec==2.2.3
aiohttp-cors==0.7.0
aiosignal==1.4.0
anoncreds==0.2.0
apispec==3.3.2
aries-askar==0.4.6
aries-cloudagent==${acapy_version}
async-timeout==4.0.3
attrs==26.1.0
base58==2.1.1
cachetools==8.0.1
certifi==2026.10.18
cffi==2.1.1
charset-normalizer==3.5.2
ConfigArgParse==1.5.3
cryptography==50.0.2
cytoolz==1.2.0
deepmerge==0.3.0
did-peer-2==0.1.2
did-peer-4==0.1.4
ecdsa==0.16.1
eth-hash==0.8.0
eth-typing==6.0.0
eth-utils==5.2.0
frozendict==2.5.1
frozenlist==1.8.0
idna==3.20
indy-credx==1.1.1
indy-vdr==0.4.2
inflection==0.5.1
Jinja2==3.1.6
jsonpath-ng==1.6.1
jwcrypto==1.6.1
lxml==6.1.3
Markdown==3.5.2
MarkupSafe==2.0.1
marshmallow==3.20.2
multidict==6.9.1
nest-asyncio==1.5.9
packaging==23.1
pillow==13.0.0
ply==3.11
portalocker==2.7.0
prompt-toolkit==2.0.10
propcache==0.5.4
pycparser==3.12
pydantic==1.10.27
pydid==0.4.3
PyJWT==2.8.0
PyLD==2.0.4
PyNaCl==1.5.0
python-dateutil==2.8.2
python-json-logger==2.0.7
pytz==2021.1
PyYAML==6.0.3
qrcode==6.1
requests==2.31.0
rlp==4.0.0
sd-jwt==0.10.4
six==1.17.0
toolz==1.2.0
typing_extensions==4.16.0
unflatten==0.1.1
urllib3==2.8.0
wcwidth==0.9.4
webargs==5.5.3
yarl==1.25.1"
	;;
*)
	log "unknown target '$target' (want 1.4 or 0.12)"
	exit 2
	;;
esac

# pick_python prints the first interpreter whose version is 3.$py_min-3.$py_max.
pick_python() {
	local candidates=()
	if [[ -n "${PROOFGATE_ACAPY_PYTHON:-}" && "$target" == 1.4 ]]; then
		candidates=("$PROOFGATE_ACAPY_PYTHON")
	else
		candidates=(python3.13 python3.12 python3 python3.11 python3.10 python3.9)
		local root="${PYENV_ROOT:-$HOME/.pyenv}" p
		for p in "$root"/versions/3.1[0-9]*/bin/python3 "$root"/versions/3.9*/bin/python3; do
			[[ -x "$p" ]] && candidates+=("$p")
		done
	fi
	local py
	for py in "${candidates[@]}"; do
		if "$py" -c "import sys; sys.exit(not ((3, $py_min) <= sys.version_info[:2] <= (3, $py_max)))" 2>/dev/null; then
			command -v "$py"
			return 0
		fi
	done
	return 1
}

if ! python="$(pick_python)"; then
	if [[ "$target" == 1.4 ]]; then
		printf 'skip: ACA-Py tests skipped: acapy-agent %s needs Python >= 3.12 (found: %s); install one (e.g. `pyenv install 3.12`) or set PROOFGATE_ACAPY_PYTHON\n' \
			"$acapy_version" "$(python3 --version 2>&1 || echo no python3)"
	else
		printf 'skip: ACA-Py 0.12 tests skipped: aries-cloudagent %s needs Python 3.9-3.11\n' "$acapy_version"
	fi
	exit 3
fi
py_version="$("$python" -c 'import sys; print(".".join(map(str, sys.version_info[:3])))')"
stamp_text="python=${py_version}
${constraints}"
stamp_file="$venv/.proofgate-stamp"
acapy="$venv/bin/aca-py"

mkdir -p "$(dirname "$venv")"
# Serialize concurrent runs (two test jobs on one machine) on the same venv.
exec 9>"$venv.lock"
if command -v flock >/dev/null; then
	flock 9
fi

if [[ -x "$acapy" && -f "$stamp_file" ]] && [[ "$(cat "$stamp_file")" == "$stamp_text" ]]; then
	log "up to date: ACA-Py ${acapy_version} on Python ${py_version} in $venv"
	printf '%s\n' "$acapy"
	exit 0
fi

log "installing ${package} with Python ${py_version} ($python) into $venv"
start=$SECONDS
rm -rf "$venv"
"$python" -m venv "$venv"
constraints_file="$(mktemp)"
trap 'rm -f "$constraints_file"' EXIT
printf '%s\n' "$constraints" >"$constraints_file"
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
	-c "$constraints_file" "$package" >&2

# Prove the install is usable before stamping it: the version, and the native
# libraries that only fail when loaded.
got="$("$acapy" --version 2>&1 | tail -n 1)"
if [[ "$got" != "$acapy_version" ]]; then
	log "aca-py --version printed '$got', want '$acapy_version'"
	exit 1
fi
"$venv/bin/python" -c '
import aries_askar.bindings, anoncreds.bindings, indy_credx.bindings, indy_vdr.bindings
for m in (aries_askar.bindings, anoncreds.bindings, indy_credx.bindings, indy_vdr.bindings):
    m.get_library()
' >&2

printf '%s\n' "$stamp_text" >"$stamp_file"
log "installed in $((SECONDS - start))s"
printf '%s\n' "$acapy"
