#!/bin/sh
# Check that every option the fragments ask for landed in a .config: usage: check-config.sh CONFIG FRAGMENT...
set -eu
config=$1
shift
# Later fragments override earlier ones; an option Kconfig dropped is an error.
awk '
FNR == NR { have[$0] = 1; if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) set[substr($0, 1, RLENGTH - 1)] = $0; next }
/^CONFIG_[A-Za-z0-9_]+=/ { n = index($0, "="); want[substr($0, 1, n - 1)] = $0; where[substr($0, 1, n - 1)] = FILENAME; next }
/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { want[$2] = $0; where[$2] = FILENAME; next }
END {
	bad = 0
	for (o in want) {
		w = want[o]
		if (w ~ /^# /) {
			if (o in set) { printf "config: %s asks for \"%s\" but .config has \"%s\"\n", where[o], w, set[o]; bad++ }
		} else if (!(w in have)) {
			printf "config: %s asks for \"%s\" but .config has \"%s\"\n", where[o], w, (o in set) ? set[o] : "# " o " is not set"; bad++
		}
	}
	if (bad) { printf "config: %d option(s) did not land: a missing dependency in the fragment?\n", bad; exit 1 }
}' "$config" "$@"
