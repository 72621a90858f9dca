#!/usr/bin/env bash
# Installs the real Credo holder agent that integration
# TestLocalVerifierWithCredoHolder and TestLocalVerifierWithCredoAnonCredsHolder
# run (internal/testenv/credo), and prints
# its install directory as the last line on stdout:
#
#   export PROOFGATE_CREDO_HOLDER="$(bash scripts/credo-holder.sh)"
#
# What it installs, into ${XDG_CACHE_HOME:-$HOME/.cache}/proofgate/credo-holder-<credo version>
# (override with PROOFGATE_CREDO_HOLDER_DIR), never into the repository:
#   node_modules/  the npm packages pinned by internal/testenv/credo/holder/package-lock.json
#                  (@credo-ts/core, node, askar, anoncreds 0.5.19;
#                  @hyperledger/aries-askar-nodejs 0.2.3, @hyperledger/anoncreds-nodejs 0.3.4),
#                  with `npm ci --ignore-scripts` (their install scripts would download
#                  binaries from GitHub), then the FFI addons (@2060.io/ffi-napi, ref-napi),
#                  which ship no prebuilt binary, built with node-gyp (needs a C++ compiler
#                  and make)
#   lib/           libaries_askar.so 0.3.2, the native library aries-askar-nodejs 0.2.3 is
#                  built against, taken from PyPI's aries-askar wheel (pip download); or
#                  copied from PROOFGATE_CREDO_ASKAR_LIB (a libaries_askar.so of that version);
#                  libanoncreds.so 0.2.3, the one anoncreds-nodejs 0.3.4 is built against
#                  (LIB_ANONCREDS_PATH), from PyPI's anoncreds wheel; or copied from
#                  PROOFGATE_CREDO_ANONCREDS_LIB
# About 230 MB; ~40 s on a cold npm cache, ~30 s on a warm one; nothing when
# the stamp (lock file, node version, askar and anoncreds versions) matches.
#
# Exit status 3, with one line on stdout that starts with "skip: ", means a
# tool is missing (node >= 18, npm, a C++ compiler, python3 with pip): the
# caller skips the Credo test (scripts/test.sh does) instead of failing the
# suite. Any other failure is a real error. What the script does is logged
# on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

src=internal/testenv/credo/holder
credo_version=0.5.19
askar_version=0.3.2
anoncreds_version=0.2.3
cache="${XDG_CACHE_HOME:-$HOME/.cache}/proofgate"
dir="${PROOFGATE_CREDO_HOLDER_DIR:-$cache/credo-holder-$credo_version}"

log() { printf 'credo-holder: %s\n' "$*" >&2; }
skip() {
	printf 'skip: Credo holder test skipped: %s\n' "$*"
	exit 3
}

command -v node >/dev/null || skip "no node; install Node.js >= 18 and npm (e.g. apt-get install nodejs npm)"
command -v npm >/dev/null || skip "no npm; install npm (e.g. apt-get install npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is too old; install Node.js >= 18"
if { [ -z "${PROOFGATE_CREDO_ASKAR_LIB:-}" ] || [ -z "${PROOFGATE_CREDO_ANONCREDS_LIB:-}" ]; } && ! python3 -m pip --version >/dev/null 2>&1; then
	skip "no python3 with pip to fetch libaries_askar and libanoncreds from PyPI (aries-askar==$askar_version, anoncreds==$anoncreds_version); install python3-pip or set PROOFGATE_CREDO_ASKAR_LIB=/path/to/libaries_askar.so ($askar_version) and PROOFGATE_CREDO_ANONCREDS_LIB=/path/to/libanoncreds.so ($anoncreds_version)"
fi

lock_sum=$(sha256sum "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
stamp_text="lock=$lock_sum
node=$(node --version)
askar=$askar_version ${PROOFGATE_CREDO_ASKAR_LIB:-pypi}
anoncreds=$anoncreds_version ${PROOFGATE_CREDO_ANONCREDS_LIB:-pypi}"
stamp_file="$dir/.proofgate-stamp"

mkdir -p "$(dirname "$dir")"
# Serialize concurrent runs (two test jobs on one machine) on the same directory.
exec 9>"$dir.lock"
if command -v flock >/dev/null; then
	flock 9
fi

# check loads what the holder loads: the packages and the native library.
check() {
	NODE_PATH="$dir/node_modules" LIB_ARIES_ASKAR_PATH="$dir/lib" LIB_ANONCREDS_PATH="$dir/lib" node -e '
		require("@credo-ts/core"); require("@credo-ts/node"); require("@credo-ts/askar"); require("@credo-ts/anoncreds")
		const v = require("@hyperledger/aries-askar-nodejs").ariesAskarNodeJS.version()
		if (v !== process.argv[1]) { console.error(`libaries_askar says ${v}, want ${process.argv[1]}`); process.exit(1) }
		const a = require("@hyperledger/anoncreds-nodejs").anoncreds.version()
		if (a !== process.argv[2]) { console.error(`libanoncreds says ${a}, want ${process.argv[2]}`); process.exit(1) }
	' "$askar_version" "$anoncreds_version" >&2
}

if [[ -f "$stamp_file" ]] && [[ "$(cat "$stamp_file")" == "$stamp_text" ]] && check 2>/dev/null; then
	log "up to date: Credo $credo_version, askar $askar_version, anoncreds $anoncreds_version in $dir"
	printf '%s\n' "$dir"
	exit 0
fi

if ! command -v make >/dev/null || ! { command -v c++ >/dev/null || command -v g++ >/dev/null; }; then
	skip "no C++ compiler or make to build @2060.io/ffi-napi (it ships no prebuilt binary); install them (apt-get install g++ make)"
fi

log "installing Credo $credo_version (npm ci), libaries_askar $askar_version and libanoncreds $anoncreds_version into $dir"
start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir/lib"
cp "$src/package.json" "$src/package-lock.json" "$dir/"
# --legacy-peer-deps: the lock was made with it; npm's automatic peer
# installs would add react-native (a peer of a dependency of
# @digitalcredentials/jsonld-signatures), ~150 MB the node holder never loads.
(cd "$dir" && npm ci --ignore-scripts --legacy-peer-deps --no-audit --no-fund --loglevel=error >&2)
log "npm ci done in $((SECONDS - start))s; building the FFI addons"
# node-gyp needs node's headers: the installed ones where there are (as
# Debian's nodejs package puts them), rather than a download from nodejs.org.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node_api.h ]; then
	export npm_config_nodedir=/usr
fi
(cd "$dir" && npm rebuild --legacy-peer-deps --loglevel=error @2060.io/ref-napi @2060.io/ffi-napi >&2)

# wheel_lib PACKAGE VERSION LIBNAME: extracts LIBNAME.so (or .dylib) into
# lib/ from PyPI's wheel of PACKAGE==VERSION.
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
wheel_lib() {
	mkdir -p "$wheels/$1"
	python3 -m pip download --disable-pip-version-check --no-input --quiet --no-deps \
		--only-binary=:all: -d "$wheels/$1" "$1==$2" >&2
	python3 - "$wheels/$1" "$dir/lib" "$3" <<'EOF'
import glob, os, sys, zipfile
wheels, out, lib = sys.argv[1], sys.argv[2], sys.argv[3]
found = False
for whl in glob.glob(os.path.join(wheels, "*.whl")):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            base = os.path.basename(name)
            if base in (lib + ".so", lib + ".dylib"):
                with open(os.path.join(out, base), "wb") as f:
                    f.write(z.read(name))
                found = True
if not found:
    sys.exit("no %s in the wheel" % lib)
EOF
}
if [[ -n "${PROOFGATE_CREDO_ASKAR_LIB:-}" ]]; then
	cp "$PROOFGATE_CREDO_ASKAR_LIB" "$dir/lib/libaries_askar.so"
else
	wheel_lib aries-askar "$askar_version" libaries_askar
fi
if [[ -n "${PROOFGATE_CREDO_ANONCREDS_LIB:-}" ]]; then
	cp "$PROOFGATE_CREDO_ANONCREDS_LIB" "$dir/lib/libanoncreds.so"
else
	wheel_lib anoncreds "$anoncreds_version" libanoncreds
fi

check
printf '%s\n' "$stamp_text" >"$stamp_file"
log "installed in $((SECONDS - start))s"
printf '%s\n' "$dir"
