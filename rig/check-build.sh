#!/bin/sh
# Build every object the series touches under Debian's own kernel configuration, at base and at HEAD, with W=1 and sparse; fail on any new warning or a failed build.
#
# The test kernels start from tinyconfig; users of the series run Debian's
# configuration.  This takes the plain amd64 flavour of linux-config
# (rig/kernel.env pins it to the source's version), applies it with
# olddefconfig in build/check/out-{head,base}, and builds with
# "make W=1 C=1" the objects of every .c file `git diff base..HEAD` names,
# in a worktree of its own (build/check/linux) checked out at HEAD's commit,
# then base's, so a rebase in build/linux cannot hand it a half-done tree.
# Warnings are compared by file and text (line numbers shift): any that
# HEAD has more often than base fails the check.
#
# CHECK_BUILD_REV=COMMIT checks that commit of build/linux instead of HEAD.
set -eu
. "$(dirname "$0")/lib.sh"

flavour=$RIG_DEBIAN_FLAVOUR
chk=$RIG_BUILD/check
t0=$(now)

git -C "$RIG_TREE" rev-parse -q --verify 'base^{commit}' >/dev/null || die "no kernel tree: run 'make tree'"
command -v ccache >/dev/null || die "ccache is missing: run 'make deps'"
command -v sparse >/dev/null || die "sparse is missing: run 'make deps'"
debcfg=$(rig_debian_config)

# What to check: a commit, never the working tree.  In the middle of a
# rebase HEAD is half the series; check the tip the rebase started from.
gitdir=$(git -C "$RIG_TREE" rev-parse --absolute-git-dir)
rev=${CHECK_BUILD_REV:-}
if [ -z "$rev" ]; then
	rev=HEAD
	[ ! -f "$gitdir/rebase-apply/applying" ] ||
		die "build/linux is in the middle of git am: run again when it is done, or set CHECK_BUILD_REV"
	for d in rebase-merge rebase-apply; do
		if [ -f "$gitdir/$d/orig-head" ]; then
			rev=$(cat "$gitdir/$d/orig-head")
			warn "build/linux is being rebased: checking the tip the rebase started from, ${rev%"${rev#???????????}"}"
		fi
	done
	[ -z "$(git --no-optional-locks -C "$RIG_TREE" status --porcelain --untracked-files=no)" ] ||
		warn "build/linux has uncommitted edits: they are not checked, only commits are"
fi
head=$(git -C "$RIG_TREE" rev-parse -q --verify "$rev^{commit}") || die "CHECK_BUILD_REV=$rev is no commit of build/linux"
base=$(git -C "$RIG_TREE" rev-parse 'base^{commit}')

# The objects: one per .c file the series adds or changes (not tools/,
# scripts/ or Documentation/, which are no kernel objects).  A changed
# header is compiled through the touched .c files that include it; the
# check says which changed header none of them includes.
changed=$(git -C "$RIG_TREE" diff --name-only --diff-filter=d "$base" "$head" |
	grep -v -e '^tools/' -e '^scripts/' -e '^Documentation/' || true)
objs=$(printf '%s\n' "$changed" | sed -n 's/\.c$/.o/p')
headers=$(printf '%s\n' "$changed" | grep '\.h$' || true)
[ -n "$objs" ] || {
	echo "the series changes no .c file: nothing to build"
	exit 0
}
echo "objects the series touches ($(printf '%s\n' "$objs" | wc -l)): $(printf '%s\n' "$objs" | tr '\n' ' ')"

# One worktree, HEAD's commit then base's: switching rewrites only the
# files the series changes, where a second worktree would write all 87,000
# files again.  Each side has its own output directory beside it
# (build/check/out-SIDE): every compile sees the tree as ../linux, as
# build/out-std sees build/linux, so ccache's base_dir gives the two sides,
# and every run, the same hashes for the same sources.  The worktree is
# removed at the end: it is only a view of two commits.
wt=$chk/linux
mkdir -p "$chk" "$RIG_LOGS"
cleanup() {
	[ ! -d "$wt" ] || git -C "$RIG_TREE" worktree remove --force "$wt" ||
		warn "could not remove the worktree $wt: git -C $RIG_TREE worktree remove --force it"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
worktree() {
	git -C "$RIG_TREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
	git -C "$RIG_TREE" worktree add -f -q --detach "$wt" "$1"
}
kmake() {
	_side=$1
	shift
	make -C "$wt" O="$chk/out-$_side" LOCALVERSION= -j"$RIG_JOBS" \
		CC="ccache gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=rig KBUILD_BUILD_HOST=lwn2004 "$@"
}
# W=1 and sparse with its diagnostics prefixed "sparse:" (as the 0-day bot
# runs it) to tell them from gcc's, kernel-doc's and objtool's.
kcheck() {
	kmake "$@" W=1 C=1 CF=-fdiagnostic-prefix
}

# Debian's configuration as its package has it.  Debian's build fills in
# its signing key and certificate files (MODULE_SIG_KEY,
# SYSTEM_TRUSTED_KEYS, SYSTEM_REVOCATION_KEYS) when it builds the
# package; none of those files is in the source, so they are blanked in
# case the package ever names them.  No object built here needs them.
debian_config() {
	mkdir -p "$chk/out-$1"
	xz -dc "$debcfg" >"$chk/out-$1/.config"
	"$wt/scripts/config" --file "$chk/out-$1/.config" \
		--set-str MODULE_SIG_KEY "" --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS ""
	kmake "$1" olddefconfig
}

# The options that decide whether an object is built: the CONFIG_ symbols
# of the kbuild lines naming it, its composite object or one of its
# directories, from its own directory up to the top.  usage: gates TREE OBJ
gates() {
	_rel=$(basename "$2")
	_dir=$(dirname "$2")
	while :; do
		if [ "$_dir" = . ]; then _mk=$1/Kbuild; else _mk=$1/$_dir/Kbuild; fi
		[ -f "$_mk" ] || _mk=$(dirname "$_mk")/Makefile
		[ -f "$_mk" ] && awk -v rel="$_rel" '
			# Join continuation lines; keep "LHS-$(CONFIG_X) += words".
			{ line = line $0 }
			/\\$/ { sub(/\\$/, " ", line); next }
			{
				if (match(line, /^[[:space:]]*[A-Za-z0-9_.]+-(\$\(CONFIG_[A-Za-z0-9_]+\)|y|objs)[[:space:]]*[:+]?=/)) {
					n++; lhs[n] = substr(line, RSTART, RLENGTH); rhs[n] = " " substr(line, RSTART + RLENGTH) " "
					gsub(/[[:space:]]+/, " ", rhs[n])
				}
				line = ""
			}
			END {
				# rel, and each of its leading directories, as kbuild names them
				want[rel] = 1
				p = rel
				while ((i = index(p, "/")) > 0) { want[substr(rel, 1, length(rel) - length(p) + i)] = 1; p = substr(p, i + 1) }
				for (round = 0; round < 3; round++)
					for (k = 1; k <= n; k++)
						for (w in want) {
							if (index(rhs[k], " " w " ") == 0) continue
							if (match(lhs[k], /CONFIG_[A-Za-z0-9_]+/)) print substr(lhs[k], RSTART, RLENGTH)
							# a part of a composite object: look for the composite too
							c = lhs[k]; sub(/^[[:space:]]*/, "", c); sub(/-.*/, "", c)
							if (c != "obj" && c != "lib" && c != "subdir") want[c ".o"] = 1
						}
			}' "$_mk"
		[ "$_dir" = . ] && break
		_rel=$(basename "$_dir")/$_rel
		_dir=$(dirname "$_dir")
	done | sort -u
}

# The value the test fragments give an option (the last one wins), if any.
frag_value() {
	# shellcheck disable=SC2046
	sed -n "s/^$1=//p; s/^# $1 is not set\$/n/p" $(rig_fragments debug) | tail -n 1
}
on_in() {
	grep -q -E "^$1=(y|m)\$" "$2"
}
# The options named in the "depends on" lines of option $2's own entry in
# tree $1's Kconfig files.
kconfig_deps() {
	grep -rh --include='Kconfig*' -A 60 -E "^(menu)?config $2\$" "$1" |
		awk 'NR > 1 && /^(menu)?config |^(end)?(menu|if|choice)|^(if|source) / { exit }
			/^[[:space:]]*depends on/ { sub(/^[[:space:]]*depends on[[:space:]]*/, ""); print }' |
		grep -o '[A-Z0-9_]*[A-Z][A-Z0-9_]*' | sort -u
}

# head: Debian's configuration, then the overlay: every option that gates
# a touched object, or that the series adds, or that an option the series
# adds depends on (SSI's fault attribute needs FAULT_INJECTION, which
# Debian leaves off), which Debian's configuration leaves off, set as the
# test fragments set it (y if they do not).
stage "check-build: worktree at HEAD" worktree "$head"
stage "check-build: head Debian config" debian_config head
overlay=$chk/overlay.config
{
	echo "# Options make check-build sets over Debian's configuration so that every object the series touches is built."
	{
		git -C "$RIG_TREE" diff "$base" "$head" -- '*Kconfig*' |
			sed -n 's/^+[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]\{1,\}\).*/CONFIG_\2/p'
		git -C "$RIG_TREE" diff "$base" "$head" -- '*Kconfig*' |
			sed -n 's/^+[[:space:]]*depends on[[:space:]]//p' |
			grep -o '[A-Z0-9_]*[A-Z][A-Z0-9_]*' | sed 's/^/CONFIG_/'
		for o in $objs; do gates "$wt" "$o"; done
	} | sort -u | while read -r opt; do
		on_in "$opt" "$chk/out-head/.config" && continue
		v=$(frag_value "$opt")
		case $v in y | m) ;; *) v=y ;; esac
		echo "$opt=$v"
	done
	# What the series needs built in ("depends on X=y") and Debian builds
	# as a module, set to y, with the test fragments' values of what X
	# itself depends on: SSI needs TIPC=y, which needs IPv6 built in or
	# off, and Debian builds both as modules.
	git -C "$RIG_TREE" diff "$base" "$head" -- '*Kconfig*' |
		sed -n 's/^+[[:space:]]*depends on[[:space:]]//p' |
		grep -o '[A-Z0-9_]*[A-Z][A-Z0-9_]*=y' | sed 's/=y$//' | sort -u |
		while read -r x; do
			grep -q "^CONFIG_$x=m\$" "$chk/out-head/.config" || continue
			echo "CONFIG_$x=y"
			for d in $(kconfig_deps "$wt" "$x"); do
				case $(frag_value "CONFIG_$d") in
				y) echo "CONFIG_$d=y" ;;
				n) echo "# CONFIG_$d is not set" ;;
				esac
			done
		done
} >"$overlay"
# Which options the test kernels enable and Debian's configuration does
# not; those outside the overlay gate no object the series touches.
fragonly=$(for f in $(rig_fragments debug); do sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=[ym]$/\1/p' "$f"; done |
	sort -u | while read -r opt; do on_in "$opt" "$chk/out-head/.config" || echo "$opt"; done)
merge_overlay() {
	cat "$overlay" >>"$chk/out-$1/.config"
	kmake "$1" olddefconfig
}
stage "check-build: head overlay" merge_overlay head
# Built in or as a module, either builds the object: CDROM_PKTCDVD=y
# becomes m under Debian's SCSI=m.
ovnames=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' "$overlay")
for opt in $ovnames; do
	on_in "$opt" "$chk/out-head/.config" ||
		die "$opt (from $overlay) is off after olddefconfig: it depends on an option Debian's configuration leaves off"
done
words() {
	sed 's/^CONFIG_//' | tr '\n' ' '
}
echo "set over Debian's config.$flavour: $(printf '%s\n' "$ovnames" | words)"
echo "the test kernels enable, Debian does not, no touched object needs: $(printf '%s\n' "$fragonly" | grep -v -x -F "$ovnames" | words)"

stage "check-build: head make prepare" kcheck head prepare

# Build the objects a side has, each compiled again (a ccache hit replays
# gcc's warnings) so that every run sees every warning; -k to see every
# failure.  usage: build_objects SIDE
build_objects() {
	_have=
	for _o in $objs; do
		if [ -f "$wt/${_o%.o}.c" ]; then
			_have="$_have $_o"
			rm -f "$chk/out-$1/$_o"
		fi
	done
	_log=$RIG_LOGS/check-build-$1-objects.log
	_t=$(now)
	# shellcheck disable=SC2086
	if ! kcheck "$1" -k $_have >"$_log" 2>&1; then
		grep -E ': (fatal )?error: |\*\*\* ' "$_log" | head -n 40
		die "objects failed to build at $1 (log: $_log)"
	fi
	printf '%-34s %7ss\n' "check-build: $1 objects" "$(elapsed "$_t")"
	# Warnings by file and text: no source line and column, no objtool
	# offset, the tree as it is named in every worktree.
	grep -E ': (warning|error): ' "$_log" |
		sed -e "s#$wt/##g" -e 's#\.\./linux/##g' >"$chk/$1.warnings" || true
	sed -e 's#^\([^: ]*\):[0-9]\{1,\}:\([0-9]\{1,\}:\)\{0,1\} #\1: #' \
		-e 's#+0x[0-9a-f]\{1,\}##g' "$chk/$1.warnings" >"$chk/$1.keys"
	echo "$_have" >"$chk/$1.objects"
}
build_objects head

# Which changed headers no checked object includes (from kbuild's .cmd
# dependency lists): their changes are compiled by none of these objects.
for o in $objs; do
	cat "$chk/out-head/$(dirname "$o")/.$(basename "$o").cmd"
done | tr ' ' '\n' | sed -e "s#^$wt/##" -e 's#^\.\./linux/##' \
	-e ':a' -e 's#[^/.][^/]*/\.\./##' -e 'ta' | sort -u >"$chk/head.deps"
uncovered=
for h in $headers; do
	grep -q -x -F "$h" "$chk/head.deps" || uncovered="$uncovered $h"
done

# A header line the series adds that compiles only with an option off (a
# stub under "#else /* !CONFIG_X */"): build the objects that include that
# header once more, from HEAD's configuration with X off.  Any warning in
# such a header there fails the check: base has no line of it to compare.
# shellcheck disable=SC2086
offpairs=$(python3 "$RIG_TOP/rig/off-branches.py" "$RIG_TREE" "$base" "$head" $headers)
off_failed=
off_checked=
off_pass() {
	_opt=$1
	_side=off-$_opt
	mkdir -p "$chk/out-$_side"
	cp "$chk/out-head/.config" "$chk/out-$_side/.config"
	"$wt/scripts/config" --file "$chk/out-$_side/.config" --disable "${_opt#CONFIG_}"
	kmake "$_side" olddefconfig
	! on_in "$_opt" "$chk/out-$_side/.config" ||
		die "$_opt stays on (another option selects it): cannot build its stubs"
	kcheck "$_side" prepare
}
for opt in $(printf '%s\n' "$offpairs" | awk 'NF { print $2 }' | sort -u); do
	hdrs=$(printf '%s\n' "$offpairs" | awk -v o="$opt" '$2 == o { print $1 }')
	users=
	for o in $objs; do
		# not the objects that option builds: they go with it
		gates "$wt" "$o" | grep -q -x -F "$opt" && continue
		for h in $hdrs; do
			if sed -e "s#$wt/##g" -e 's#\.\./linux/##g' \
				"$chk/out-head/$(dirname "$o")/.$(basename "$o").cmd" | tr ' ' '\n' |
				grep -q -x -F "$h"; then
				users="$users $o"
				break
			fi
		done
	done
	[ -n "$users" ] || continue
	stage "check-build: $opt off, make prepare" off_pass "$opt"
	_log=$RIG_LOGS/check-build-off-$opt-objects.log
	for o in $users; do rm -f "$chk/out-off-$opt/$o"; done
	# shellcheck disable=SC2086
	kcheck "off-$opt" -k $users >"$_log" 2>&1 ||
		die "objects failed to build with $opt off (log: $_log)"
	bad=$(for h in $hdrs; do grep -F "$h:" "$_log" | grep -E ': (warning|error): ' || true; done)
	[ -z "$bad" ] || off_failed="$off_failed
$bad"
	off_checked="$off_checked $opt ($(printf '%s\n' "$hdrs" | tr '\n' ' ')through$users)"
done

stage "check-build: worktree at base" git -C "$wt" checkout -q --detach "$base"
stage "check-build: base Debian config" debian_config base
stage "check-build: base overlay" merge_overlay base
stage "check-build: base make prepare" kcheck base prepare
build_objects base

# New: a file + text that HEAD reports more often than base.
# usage: new_warnings sparse|w1
new_warnings() {
	_v=
	[ "$1" = sparse ] || _v=-v
	for _f in base.keys head.keys head.warnings; do
		grep $_v -F ": sparse: " "$chk/$_f" >"$chk/$_f.$1" || true
	done
	awk 'FILENAME == ARGV[1] { b[$0]++; next }
		FILENAME == ARGV[2] { h[$0]++; key[FNR] = $0; next }
		h[key[FNR]] > b[key[FNR]] { print }' "$chk/base.keys.$1" "$chk/head.keys.$1" "$chk/head.warnings.$1"
}
new_w1=$(new_warnings w1)
new_sparse=$(new_warnings sparse)
count() {
	if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi
}

echo
echo "check-build: $(wc -w <"$chk/head.objects") objects at HEAD ${head%"${head#???????????}"}, $(wc -w <"$chk/base.objects") at base, Debian's config.$flavour"
printf '  W=1 warnings:    base %s, HEAD %s, new %s\n' "$(wc -l <"$chk/base.keys.w1")" "$(wc -l <"$chk/head.keys.w1")" "$(count "$new_w1")"
printf '  sparse warnings: base %s, HEAD %s, new %s\n' "$(wc -l <"$chk/base.keys.sparse")" "$(wc -l <"$chk/head.keys.sparse")" "$(count "$new_sparse")"
[ -z "$uncovered" ] || echo "  changed headers no checked object includes:$uncovered"
[ -z "$off_checked" ] || echo "  built again with an option off for the stubs the series adds:$off_checked"
echo "  every warning: $chk/{base,head}.warnings; logs: $RIG_LOGS/check-build-*.log"
echo "  time: $(elapsed "$t0")s"
# The new warnings as the head log has them, each sparse one with the
# lines that follow it at the same place ("expected ...", "got ...").
show() {
	sed -e "s#$wt/##g" -e 's#\.\./linux/##g' "$RIG_LOGS/check-build-head-objects.log" |
		NEW=$1 awk '
		BEGIN { n = split(ENVIRON["NEW"], l, "\n"); for (i = 1; i <= n; i++) want[l[i]] = 1 }
		cont != "" && index($0, cont "   ") == 1 { print; next }
		{ cont = "" }
		$0 in want { print; if (i = index($0, ": sparse: ")) cont = substr($0, 1, i + 9) }'
}
if [ -n "$new_w1$new_sparse" ]; then
	echo
	[ -z "$new_w1" ] || printf 'new W=1 warnings:\n%s\n' "$(show "$new_w1")"
	[ -z "$new_sparse" ] || printf 'new sparse warnings:\n%s\n' "$(show "$new_sparse")"
	die "the series adds $(($(count "$new_w1") + $(count "$new_sparse"))) warnings (above)"
fi
[ -z "$off_failed" ] || die "warnings in the series' stubs, built with their option off:$off_failed"
echo "check-build: no new warnings"
