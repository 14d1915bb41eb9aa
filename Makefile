# Thin targets over rig/: every recipe is one script, which says what it does in its first lines.
#
#   make run            build everything, boot the patched kernel, demo each group
#   make test           build everything, run every test group on std and debug
#   make test T=smoke VARIANT=std    one group, one kernel
#   make bench          figures: each group's bench/ programs on std and a reference kernel
#   make check-build    the series' objects under Debian's config: W=1 and sparse, no new warnings
#   make debian-kernel  the whole series under Debian's config, booted with smoke (about an hour; not in CI)
#   make tree | export | check-patches | bisect-check | rig-selftest | timings | deps | clean

SHELL := /bin/sh
export T VARIANT TIMEOUT FORCE CHECK_BUILD_REV

run:
	@sh rig/run.sh

test:
	@sh rig/test.sh

bench:
	@sh rig/bench.sh

deps:
	@sh rig/deps.sh

tree:
	@sh rig/tree.sh

export:
	@sh rig/export.sh

check-patches:
	@sh rig/check-patches.sh

check-build:
	@sh rig/check-build.sh

debian-kernel:
	@sh rig/debian-kernel.sh

bisect-check:
	@sh rig/bisect-check.sh

# The log checker's unit tests, then seven broken kernels that must each fail.
rig-selftest:
	@python3 rig/check-run-test.py
	@sh rig/selftest.sh

# The README's figures; --cold also builds both kernels with ccache off.
timings:
	@sh rig/timings.sh $(if $(COLD),--cold)

# Keeps build/linux (the git tree) and ccache; drops every build output.
clean:
	git -C build/linux worktree remove --force ../debian-linux 2>/dev/null || true
	rm -rf build/out-* build/bisect build/check build/debian-linux build/mod-* build/guest build/root-* build/initramfs-* build/logs

.PHONY: run test bench deps tree export check-patches check-build debian-kernel bisect-check rig-selftest timings clean
