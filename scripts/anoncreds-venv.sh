#!/usr/bin/env bash
# Installs the AnonCreds reference library's Python wrapper (PyPI
# "anoncreds", pinned; it ships the native library) into a virtualenv and
# prints the virtualenv's python on its last line. Prints nothing on the
# last line (and one reason line on stderr) where that cannot be done.
set -uo pipefail
pin=0.2.3
venv="${PROOFGATE_ANONCREDS_VENV:-$HOME/.cache/proofgate/anoncreds-venv}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import anoncreds, sys; sys.exit(0 if anoncreds.library_version().startswith('$pin') else 1)" 2>/dev/null; then
	echo "$venv/bin/python"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "anoncreds reference: no python3, skipped" >&2; echo; exit 0
fi
if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q "anoncreds==$pin"; } >/dev/null 2>&1; then
	echo "anoncreds reference: cannot install anoncreds==$pin from PyPI, skipped" >&2; echo; exit 0
fi
echo "$venv/bin/python"
