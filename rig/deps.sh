#!/bin/sh
# Install the Debian packages the rig needs (rig/packages.txt, rig/guest-packages.txt, the pinned kernel source and its configurations), only what is missing.
set -eu
. "$(dirname "$0")/lib.sh"

missing=
# The rig's own packages, then those whose programs the guest runs.
for p in $(grep -v '^#' "$RIG_TOP/rig/packages.txt") \
	$(sed -n 's/^\([a-z0-9][a-z0-9.+-]*\) .*/\1/p' "$RIG_TOP/rig/guest-packages.txt"); do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done

want="$LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION"
have=$(dpkg-query -W -f='${Status} ${Version}\n' "$LINUX_SOURCE_PKG" 2>/dev/null |
	sed -n 's/^install ok installed //p')
if [ "$have" != "$LINUX_SOURCE_VERSION" ]; then
	[ "$(id -u)" = 0 ] || die "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is not installed and installing needs root"
	avail=$(apt-cache madison "$LINUX_SOURCE_PKG" 2>/dev/null | awk '{print $3}')
	if [ -z "$avail" ]; then
		apt-get update -qq || die "apt-get update failed"
		avail=$(apt-cache madison "$LINUX_SOURCE_PKG" 2>/dev/null | awk '{print $3}')
	fi
	if ! printf '%s\n' "$avail" | grep -qxF "$LINUX_SOURCE_VERSION"; then
		cand=$(apt-cache policy "$LINUX_SOURCE_PKG" | sed -n 's/^ *Candidate: //p')
		[ -n "$cand" ] && [ "$cand" != "(none)" ] ||
			die "the archive has no $LINUX_SOURCE_PKG at all (apt-get update?)"
		warn "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is not in the archive; using the candidate $cand instead"
		want="$LINUX_SOURCE_PKG=$cand"
	fi
	missing="$missing $want"
fi
# Debian's configurations of the kernel, at the version of its source.
want_cfg="$LINUX_CONFIG_PKG=${want#*=}"
have_cfg=$(dpkg-query -W -f='${Status} ${Version}\n' "$LINUX_CONFIG_PKG" 2>/dev/null |
	sed -n 's/^install ok installed //p')
[ "$LINUX_CONFIG_PKG=$have_cfg" = "$want_cfg" ] || missing="$missing $want_cfg"

if [ -z "$missing" ]; then
	echo "all packages present"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root, or install them)"
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! apt-get install -y -q --no-install-recommends $missing; then
	apt-get update -q || die "apt-get update failed"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing ||
		die "apt-get install failed for:$missing"
fi
