#!/usr/bin/env bash
# Installs a real ACA-Py (aries-cloudagent 0.12.8, from PyPI) into a virtualenv
# for the Go tests in internal/testenv/acapy and internal/upstream/acapy, and
# prints the path of its `aca-py` executable as the only line on stdout.
#
#   export PROOFGATE_ACAPY="$(bash .ci/acapy-venv.sh)"
#
# Idempotent: a stamp file records the interpreter and the pinned package set;
# when both match, nothing is downloaded and the script returns at once.
#
# Why 0.12.8: it is the newest ACA-Py that runs on Python 3.9–3.11 (the machine's
# python3 is 3.11); 1.x needs 3.12+. The `askar` extra is not optional: without
# it `aca-py` fails at import (`No module named 'anoncreds'`). Its native parts
# (aries-askar, anoncreds, indy-credx, indy-vdr) come as manylinux2014 wheels.
#
# Environment:
#   PROOFGATE_ACAPY_VENV    virtualenv directory (default: ${XDG_CACHE_HOME:-$HOME/.cache}/proofgate/acapy-venv)
#   PROOFGATE_ACAPY_PYTHON  interpreter to build it with (default: first of python3, python3.11,
#                           python3.10, python3.9 that is 3.9–3.11)
set -euo pipefail

acapy_version=0.12.8
venv="${PROOFGATE_ACAPY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/proofgate/acapy-venv}"

# Every package pinned to the set that was installed and run here, so that a
# new release of a transitive dependency cannot break CI on a fresh machine.
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

log() { printf 'acapy-venv: %s\n' "$*" >&2; }

# pick_python prints the first interpreter whose version is 3.9–3.11.
pick_python() {
	local candidates=(python3 python3.11 python3.10 python3.9)
	if [[ -n "${PROOFGATE_ACAPY_PYTHON:-}" ]]; then
		candidates=("$PROOFGATE_ACAPY_PYTHON")
	fi
	local py
	for py in "${candidates[@]}"; do
		if "$py" -c 'import sys; sys.exit(not ((3, 9) <= sys.version_info[:2] <= (3, 11)))' 2>/dev/null; then
			command -v "$py"
			return 0
		fi
	done
	log "no Python 3.9–3.11 found (tried: ${candidates[*]}); aries-cloudagent ${acapy_version} needs one"
	log "python3 is: $(python3 --version 2>&1 || echo missing)"
	return 1
}

python="$(pick_python)"
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
	log "up to date: aries-cloudagent ${acapy_version} on Python ${py_version} in $venv"
	printf '%s\n' "$acapy"
	exit 0
fi

log "installing aries-cloudagent[askar]==${acapy_version} with Python ${py_version} ($python) into $venv"
start=$SECONDS
rm -rf "$venv"
"$python" -m venv "$venv"
constraints_file="$(mktemp)"
trap 'rm -f "$constraints_file"' EXIT
printf '%s\n' "$constraints" >"$constraints_file"
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
	-c "$constraints_file" "aries-cloudagent[askar]==${acapy_version}" >&2

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
