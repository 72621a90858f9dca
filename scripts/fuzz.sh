#!/usr/bin/env bash
# Runs every fuzz target briefly (FUZZTIME each, default 5s), after their
# seed corpora (testdata/fuzz/<Target>/) have run as plain tests. A failing
# input is written to the package's testdata/fuzz/<Target>/: commit it as a
# regression test with the fix. Usage: scripts/fuzz.sh [fuzztime]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-${FUZZTIME:-5s}}"

# Every fuzz target in the tree (a func Fuzz… in a _test.go file), so that
# a new one is fuzzed without being listed here. FuzzMatch (package
# proofgate) is left to its seed corpus: instrumenting all of Caddy for it
# takes minutes.
targets=()
while IFS=: read -r file name; do
	[ "$name" = FuzzMatch ] && continue
	targets+=("./$(dirname "$file") $name")
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's|^\./||; s|:func |:|' | sort)
# Go before 1.27 can report "context deadline exceeded" when -fuzztime
# ends while a worker is mid-input (go.dev/issue/75804): a race in its
# fuzzing coordinator, not a failing input. A run that fails that way and
# writes no new input to the corpus is reported and passed; any other
# failure fails the script.
inputs() { if [ -d "$1" ]; then ls "$1" | wc -l; else echo 0; fi; }
for t in "${targets[@]}"; do
	set -- $t
	echo "fuzz: $2 ($1) for $fuzztime"
	corpus="$1/testdata/fuzz/$2"
	before=$(inputs "$corpus")
	log=$(mktemp)
	if go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" 2>&1 | tee "$log"; then
		rm -f "$log"
		continue
	fi
	after=$(inputs "$corpus")
	if [ "$after" = "$before" ] && grep -q '^    context deadline exceeded$' "$log"; then
		echo "fuzz: $2: Go's fuzztime deadline race (go.dev/issue/75804), no failing input written; not a failure"
		rm -f "$log"
		continue
	fi
	rm -f "$log"
	exit 1
done
