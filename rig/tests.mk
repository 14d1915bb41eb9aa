# Build the guest's static programs: the test groups' tests (64-bit, and -m32 where a group asks), the rig's guest tools and the features' tools.
#
# make -f rig/tests.mk TOP=<repo> OUT=<dir> HDR=<uapi include dir> GROUPS="<group dir>..."
#
# A group is a directory of *.c test programs.  Its optional group.conf may
# say "m32=yes": every test is then also built with gcc -m32 as NAME-m32,
# so the compat system-call path gets the same tests, except the programs
# named on a "no-m32=NAME..." line; "selftests=PATH..." also runs the
# tree's tools/testing/selftests/PATH.c (64-bit, as selftest-NAME, linked
# with "selftests-libs=..."); "ext4-image=yes" puts an empty 8 MiB ext4
# image beside the programs, as ext4.img (tests/lib/ext4.h mounts copies
# of it); "fist=NAME..." generates the group's NAME.fist or else
# tools/fistgen/examples/NAME.fist, as modules (rig/fist-modules.sh) and
# as FUSE daemons (below), and ships fistgen's templates and examples
# with the group's bad/*.fist in fist/;
# "mem=MB" is the guest memory the group needs at least, and
# "scsi-disk=MB" gives the guest an empty disk of that size on a
# virtio-scsi controller (boot.sh); "nodes=N" boots the group alone on a
# cluster of N guests (rig/cluster.py), its programs on node 1;
# and "cmdline=ARGS":
# ARGS go on the kernel command line of every boot that runs the group.  The programs of a group
# run in the order of $(OUT)/tests/<group>/list.  A group's bench/*.c are
# make bench's programs, built 64-bit into $(OUT)/bench/<group>/.

CC ?= gcc
SELFTESTS := $(TOP)/build/linux/tools/testing/selftests
CFLAGS := -O2 -g -Wall -Werror -D_GNU_SOURCE \
	-I$(HDR) -I$(SELFTESTS) -I$(TOP)/tests/lib
# The harness casts what EXPECT_*() compares to intmax_t: pointers too,
# which warns on 32-bit.
CFLAGS_M32 := -m32 -Wno-pointer-to-int-cast
LDFLAGS := -static
LIBSRC := $(wildcard $(TOP)/tests/lib/*.c)
LIBHDR := $(wildcard $(TOP)/tests/lib/*.h)
# Every program is rebuilt when the harness, the test library or the
# installed uapi headers change, and a group's programs when its own *.h do.
DEPS := $(LIBSRC) $(LIBHDR) $(SELFTESTS)/kselftest_harness.h $(SELFTESTS)/kselftest.h \
	$(OUT)/headers.stamp

all:

$(OUT)/bin/asuser: $(TOP)/rig/guest/asuser.c $(DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBSRC)

# A cluster node's requests to the host runner (rig/cluster.py).
$(OUT)/bin/rig-ctl: $(TOP)/rig/guest/rig-ctl.c $(OUT)/headers.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# selftest_rule(name,path,dir): the tree's tools/testing/selftests/PATH.c,
# built static and 64-bit only as selftest-NAME, with the group's
# "selftests-libs=" (upstream code: its own warnings are not ours to fail on).
define selftest_rule
$(OUT)/tests/$(1)/selftest-$(notdir $(2)): $(SELFTESTS)/$(2).c $$(DEPS)
	@mkdir -p $$(@D)
	$$(CC) -O2 -g -I$(HDR) -I$(SELFTESTS) $$(LDFLAGS) -o $$@ $$< \
		$(shell sed -n 's/^selftests-libs=//p' $(3)/group.conf 2>/dev/null)
endef

# group_rules(dir,name): the programs, list and demo of one group.
define group_rules
$(2)_src := $(sort $(wildcard $(1)/*.c))
$(2)_progs := $$(patsubst $(1)/%.c,%,$$($(2)_src))
ifeq ($(shell grep -qsx 'm32=yes' $(1)/group.conf && echo yes),yes)
$(2)_progs += $$(addsuffix -m32,$$(filter-out \
	$(shell sed -n 's/^no-m32=//p' $(1)/group.conf 2>/dev/null),$$($(2)_progs)))
endif
$(2)_selftests := $(shell sed -n 's/^selftests=//p' $(1)/group.conf 2>/dev/null)
$(2)_progs += $$(addprefix selftest-,$$(notdir $$($(2)_selftests)))
$(2)_targets := $$(addprefix $(OUT)/tests/$(2)/,$$($(2)_progs) list)
$$(foreach t,$$($(2)_selftests),$$(eval $$(call selftest_rule,$(2),$$(t),$(1))))
$(2)_targets += $$(patsubst $(1)/bench/%.c,$(OUT)/bench/$(2)/%,$$(wildcard $(1)/bench/*.c))
ifeq ($(shell grep -qsx 'ext4-image=yes' $(1)/group.conf && echo yes),yes)
$(2)_targets += $(OUT)/tests/$(2)/ext4.img
endif
$(2)_hdr := $(wildcard $(1)/*.h)
ifneq ($(shell grep -s '^fist=' $(1)/group.conf),)
$(2)_targets += $(OUT)/tests/$(2)/fist/stamp
$(2)_hdr += $(OUT)/tests/$(2)/fist/stamp
$(2)_cflags := -I$(OUT)/tests/$(2)/fist/gen
endif
ifneq ($(wildcard $(1)/demo.sh),)
$(2)_targets += $(OUT)/tests/$(2)/demo.sh
endif

$(OUT)/tests/$(2)/%: $(1)/%.c $$(DEPS) $$($(2)_hdr)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$($(2)_cflags) $$(LDFLAGS) -o $$@ $$< $$(LIBSRC)

$(OUT)/tests/$(2)/%-m32: $(1)/%.c $$(DEPS) $$($(2)_hdr)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$($(2)_cflags) $$(CFLAGS_M32) $$(LDFLAGS) -o $$@ $$< $$(LIBSRC)

# bench/*.c: make bench's programs, in $(OUT)/bench/GROUP, not in the list.
$(OUT)/bench/$(2)/%: $(1)/bench/%.c $$(DEPS) $$($(2)_hdr)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$< $$(LIBSRC)

# 1 KiB blocks, a 1 MiB journal, owned by root whoever runs the build.
$(OUT)/tests/$(2)/ext4.img: $(1)/group.conf
	@mkdir -p $$(@D)
	rm -f $$@
	PATH="$$$$PATH:/usr/sbin:/sbin" mkfs.ext4 -q -F -b 1024 -E root_owner=0:0 $$@ 8M

# fistgen's templates and examples, and the group's malformed
# descriptions (bad/*.fist), for the generator's tests in the guest; in
# fist/gen/NAME, each example generated on the host, for the tests to
# include its uapi header (NAME/NAME_ioctl.h); and in fist/NAME-fuse,
# each example's FUSE target, a static daemon.  The group's own *.fist
# (descriptions for its tests alone) are generated and built alike.
$(OUT)/tests/$(2)/fist/stamp: $(TOP)/tools/fistgen/fistgen.c \
		$(wildcard $(TOP)/tools/fistgen/templates/* \
		$(TOP)/tools/fistgen/templates/fuse/* \
		$(TOP)/tools/fistgen/examples/*.fist $(1)/*.fist $(1)/bad/*.fist)
	rm -rf $$(@D)
	mkdir -p $$(@D)/bad $$(@D)/gen
	cp -r $(TOP)/tools/fistgen/templates $(TOP)/tools/fistgen/examples $$(@D)/
	cp $(1)/bad/*.fist $$(@D)/bad/
	$$(CC) -O2 -Wall -Werror -D_GNU_SOURCE -o $$(@D)/gen/fistgen $$<
	for f in $(TOP)/tools/fistgen/examples/*.fist $(wildcard $(1)/*.fist); do \
		n=$$$$(basename $$$$f .fist); \
		$$(@D)/gen/fistgen -t $(TOP)/tools/fistgen/templates \
			-o $$(@D)/gen/$$$$n $$$$f || exit 1; \
		$$(@D)/gen/fistgen -T fuse -t $(TOP)/tools/fistgen/templates \
			-o $$(@D)/gen/fuse-$$$$n $$$$f || exit 1; \
		$$(MAKE) -s -C $$(@D)/gen/fuse-$$$$n STATIC=1 CC="$$(CC)" \
			CFLAGS="-O2 -g -Werror" && \
		strip -o $$(@D)/$$$$n-fuse $$(@D)/gen/fuse-$$$$n/$$$$n-fuse && \
		rm $$(@D)/gen/fuse-$$$$n/$$$$n-fuse || exit 1; \
	done
	rm $$(@D)/gen/fistgen
	touch $$@

$(OUT)/tests/$(2)/demo.sh: $(1)/demo.sh
	@mkdir -p $$(@D)
	cp $$< $$@

$(OUT)/tests/$(2)/list: FORCE
	@mkdir -p $$(@D)
	@printf '%s\n' $$($(2)_progs) >$$@.tmp
	@cmp -s $$@.tmp $$@ && rm $$@.tmp || mv $$@.tmp $$@
	@sed -n 's/^cmdline=//p' $(1)/group.conf 2>/dev/null >$$(@D)/cmdline || :
	@sed -n 's/^mem=//p' $(1)/group.conf 2>/dev/null >$$(@D)/mem || :
	@sed -n 's/^scsi-disk=//p' $(1)/group.conf 2>/dev/null >$$(@D)/scsi-disk || :
	@sed -n 's/^nodes=//p' $(1)/group.conf 2>/dev/null >$$(@D)/nodes || :

all: $$($(2)_targets)
endef

$(foreach d,$(GROUPS),$(eval $(call group_rules,$(d),$(notdir $(d)))))

# The user-space tools shipped with the features: tools/NAME/NAME.c, standalone
# (no test library), installed in the guest as /bin/NAME.
TOOLS := $(notdir $(wildcard $(TOP)/tools/*))
define tool_rule
$(OUT)/bin/$(1): $(TOP)/tools/$(1)/$(1).c $(OUT)/headers.stamp
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$<
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))
all: $(addprefix $(OUT)/bin/,$(TOOLS))

all: $(OUT)/bin/asuser $(OUT)/bin/rig-ctl

FORCE:
.PHONY: all FORCE
.DELETE_ON_ERROR:
