# Shared helpers for the rig scripts: paths, messages and timed stages (sourced, not run).
# shellcheck shell=sh

RIG_TOP=$(cd "$(dirname "$0")/.." && pwd)
RIG_BUILD=${RIG_BUILD:-$RIG_TOP/build}
RIG_TREE=${RIG_TREE:-$RIG_BUILD/linux}
RIG_LOGS=${RIG_LOGS:-$RIG_BUILD/logs}
RIG_JOBS=${RIG_JOBS:-$(nproc)}
. "$RIG_TOP/rig/kernel.env"

# ccache lives outside the clone so a fresh clone (CI) still finds it warm.
# base_dir makes the paths of a compile (the -I options, the source, the
# include files in its manifest) relative to the output directory, so a
# clone at another path hits the same objects, as long as each output
# directory is a sibling of the tree it builds (build/out-std beside
# build/linux: "../linux/..."); one elsewhere sees other relative paths
# and misses everything.
export CCACHE_DIR="${CCACHE_DIR:-/var/cache/lwn2004-ccache}"
export CCACHE_BASEDIR="$RIG_TOP"
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"

die() {
	printf 'rig: error: %s\n' "$*" >&2
	exit 1
}

warn() {
	printf 'rig: warning: %s\n' "$*" >&2
}

# Seconds since the epoch with centiseconds, for stage timings.
now() {
	date +%s.%N | cut -c1-13
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

# stage NAME CMD...: run CMD with its output in build/logs/NAME.log, print
# one line with the elapsed time, and on failure the log's path and tail.
stage() {
	_name=$1
	shift
	mkdir -p "$RIG_LOGS"
	_log=$RIG_LOGS/$(printf '%s' "$_name" | tr -c 'A-Za-z0-9_.\n' '-' | tr -s '-' | sed 's/-$//').log
	_t0=$(now)
	if "$@" >"$_log" 2>&1; then
		printf '%-34s %7ss\n' "$_name" "$(elapsed "$_t0")"
	else
		_rc=$?
		printf '%-34s %7ss  FAILED (exit %s)\n' "$_name" "$(elapsed "$_t0")" "$_rc"
		echo "---- last 30 lines of $_log ----"
		tail -n 30 "$_log"
		echo "---- full log: $_log ----"
		exit "$_rc"
	fi
}

# The test groups: every directory under tests/ (one source of truth).
rig_groups() {
	for _d in "$RIG_TOP"/tests/*/; do
		_g=$(basename "$_d")
		[ "$_g" = lib ] && continue
		printf '%s\n' "$_g"
	done
}

# The config fragments of a variant, in merge order: base, every feature
# fragment, then debug for the debug variant or ref for make bench's
# reference kernel.
rig_fragments() {
	echo "$RIG_TOP/config/base.config"
	for _f in "$RIG_TOP"/config/*.config; do
		case $(basename "$_f") in
		base.config | debug.config | ref.config) ;;
		*) echo "$_f" ;;
		esac
	done
	case $1 in
	debug | ref) echo "$RIG_TOP/config/$1.config" ;;
	esac
	return 0
}

rig_variants() {
	case ${VARIANT:-all} in
	all | "") echo "std debug" ;;
	std | debug) echo "$VARIANT" ;;
	*) die "VARIANT=$VARIANT: use std, debug or leave it unset for both" ;;
	esac
}

# The patch files of patches/series, in order, one a line.
series_patches() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$RIG_TOP/patches/series" || true
}

# A checksum of the series: its order and every patch's content.
series_sum() {
	(
		series_patches
		for _p in $(series_patches); do cat "$RIG_TOP/patches/$_p"; done
	) | sha256sum | cut -d' ' -f1
}

# The groups T names (commas or spaces), or every group: one line,
# space-separated, each checked to exist.
rig_selected_groups() {
	_sel=$(printf '%s\n' "${T:-$(rig_groups)}" | tr ',\n' '  ' | tr -s ' ' | sed 's/^ //; s/ $//')
	for _g in $_sel; do
		[ -d "$RIG_TOP/tests/$_g" ] && [ "$_g" != lib ] ||
			die "T=$_g: no such test group (groups: $(rig_groups | tr '\n' ' '))"
	done
	printf '%s\n' "$_sel"
}

# How many guests a built group boots on (group.conf nodes=, from
# build/guest/tests/GROUP/nodes): 1, or 2 to 9 for a cluster group, which
# boots alone as a cluster of that many guests (rig/cluster.py).
rig_nodes() {
	_n=$(cat "$RIG_BUILD/guest/tests/$1/nodes" 2>/dev/null || true)
	case $_n in
	'') echo 1 ;;
	[2-9]) echo "$_n" ;;
	*) die "group $1: nodes=$_n in its group.conf: give a number of guests from 2 to 9" ;;
	esac
}

# The built groups given as arguments that boot on one guest (ordinary)
# or on a cluster (cluster), space-separated.
rig_groups_of_kind() {
	_kind=$1
	shift
	for _g in "$@"; do
		_n=$(rig_nodes "$_g")
		if [ "$_n" = 1 ]; then
			[ "$_kind" = ordinary ] && printf '%s ' "$_g"
		else
			[ "$_kind" = cluster ] && printf '%s ' "$_g"
		fi
	done
	return 0
}

# The directories of the groups given as arguments, space-separated.
rig_group_dirs() {
	for _g in "$@"; do
		printf '%s ' "$RIG_TOP/tests/$_g"
	done
}

# The set-up every entry point starts with: packages, then the kernel tree.
rig_setup() {
	stage "packages" sh "$RIG_TOP/rig/deps.sh"
	stage "kernel tree" sh "$RIG_TOP/rig/tree.sh" --ensure
}

# Debian's own kernel configuration for this source: the xz file of the
# plain amd64 flavour in linux-config, which must be the source's version.
# linux-config holds one configuration per featureset and flavour:
# amd64_none_amd64 is the one linux-image-amd64 ships; cloud-amd64 leaves
# out most hardware drivers and rt is the PREEMPT_RT featureset.
RIG_DEBIAN_FLAVOUR=amd64_none_amd64
rig_debian_config() {
	_pkgver() {
		dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null | sed -n 's/^install ok installed //p'
	}
	[ "$(_pkgver "$LINUX_CONFIG_PKG")" = "$(_pkgver "$LINUX_SOURCE_PKG")" ] ||
		die "$LINUX_CONFIG_PKG ($(_pkgver "$LINUX_CONFIG_PKG")) is not the version of $LINUX_SOURCE_PKG ($(_pkgver "$LINUX_SOURCE_PKG")): run 'make deps'"
	_cfg=$(dpkg-query -L "$LINUX_CONFIG_PKG" | grep "/config\.$RIG_DEBIAN_FLAVOUR\.xz\$" || true)
	[ -f "$_cfg" ] || die "$LINUX_CONFIG_PKG has no config.$RIG_DEBIAN_FLAVOUR.xz (dpkg -L $LINUX_CONFIG_PKG)"
	echo "$_cfg"
}
