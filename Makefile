# softib top-level Makefile: module (kbuild, see Kbuild), provider, install, demo, check.
# `make help` lists the targets.

# The kernel softib.ko is built for (tools/pick-kernel): KDIR=<build tree> or KVER=<release>
# names it; else the running kernel's tree, else the only installed one. With several installed
# and none named, the module targets stop and list them: never "the newest".
PICK_ARGS = $(if $(KDIR),--kdir '$(KDIR)') $(if $(KVER),--kver '$(KVER)')
PICKED = $(shell tools/pick-kernel $(PICK_ARGS) 2>/dev/null)
SIB_KDIR = $(word 1,$(PICKED))
SIB_KVER = $(word 2,$(PICKED))
DESTDIR ?=
# absolute, so that the sub-makes (-C provider) install into the same place
override DESTDIR := $(if $(DESTDIR),$(abspath $(DESTDIR)))
# the tools and manual pages of 'make install'/'install-tools' (the packages use /usr)
prefix ?= /usr/local
bindir ?= $(prefix)/bin
sbindir ?= $(prefix)/sbin
mandir ?= $(prefix)/share/man

.PHONY: all module module-kernel kernels module-debug provider tools load perf pkey wire loop doorbell field limits \
	apps install install-module install-provider install-tools uninstall uninstall-tools deb \
	deps demo check check-full check-vm clean help

all: module provider load perf pkey wire loop doorbell field limits apps

help:
	@echo "make [all]      build softib.ko, softib_db.ko (KVER=<release> or KDIR=<tree>) and provider/libsoftib-rdmav34.so"
	@echo "make module     only the kernel modules (W=1 for extra warnings), for the kernel tools/pick-kernel picks"
	@echo "make kernels    the kernel modules for every installed header tree, into build/kernels/<release>/"
	@echo "make provider   only the rdma-core provider"
	@echo "make load       only tools/load/sib-load, the verifying RC load tool"
	@echo "make perf       only tools/perf (sib-memcpy, sib-memuse, sib-lat1, sib-udprr: helpers of the benchmarks)"
	@echo "make pkey       only tools/sib-pkey (P_Key tables), tools/sib-link (IB cable), tools/sib-cc (congestion control) and tests/pkey/pkey-traffic"
	@echo "make wire       only tests/ring-tamper/ring-tamper (tampered rings, wire stage)"
	@echo "make loop       only tests/loop/loop-check and tests/odp/sib-odp (loopback stage)"
	@echo "make doorbell   only tests/doorbell/sib-doorbell (doorbell stage)"
	@echo "make field      only tests/field (field-check, mc-send: interop stage; smc-xfer: ulps)"
	@echo "make limits     only tests/limits/sib-limits (module parameter limits, lifecycle stage)"
	@echo "make apps       only tests/apps: sib-mpi and sib-ucp (the apps stage's programs; skipped without mpicc / libucx-dev)"
	@echo "make module-debug  softib.ko, softib_db.ko for tools/build-debug-kernel's kernel, in build/debug/"
	@echo "make tools      only the user tools: tools/sib-pkey/sib-pkey, tools/sib-link/sib-link, tools/sib-cc/sib-cc and tools/load/sib-load"
	@echo "make install    module to /lib/modules/<kver>/updates (+ depmod), provider + softib.driver, softib(7)"
	@echo "make install-tools   sib-pkey, sib-link, sib-cc to $(sbindir), sib-load to $(bindir), their manual pages (prefix=...)"
	@echo "make uninstall  remove what make install installed (uninstall-tools: what install-tools did)"
	@echo "make module-kernel  print the kernel tree and release make module would build for"
	@echo "make deb        Debian packages softib-dkms, ibverbs-provider-softib, softib-tools into build/deb/"
	@echo "make deps       install missing Debian packages (as root)"
	@echo "make demo       build, boot one QEMU guest, run verbs programs over sib0"
	@echo "make check      unit/ABI tests, VM traffic tests, rdma-core python suite (the default stages, CI's run)"
	@echo "make check-full every stage of tests/check (also mem, cc, two-hosts, apps-full and the 6.12 and debug-kernel stages the default run leaves out; ~3 h)"

# what make module builds against, "KDIR KVER" (fails as make module does when it cannot pick)
module-kernel:
	@tools/pick-kernel $(PICK_ARGS)

module:
	@tools/pick-kernel $(PICK_ARGS) >/dev/null
	@echo "softib: building for $(SIB_KVER) ($(SIB_KDIR))"
	$(MAKE) -C $(SIB_KDIR) M=$(CURDIR) modules

# one copy of the module sources per installed kernel: kbuild writes its objects beside them
kernels:
	@set -e; tools/pick-kernel --list | { n=0; while read -r kdir kver; do n=$$((n + 1)); \
		out=build/kernels/$$kver; echo "softib: building for $$kver ($$kdir) in $$out"; \
		rm -rf $$out && mkdir -p $$out && cp Kbuild $$out/ && cp -a kernel include $$out/ && \
		rm -f $$out/kernel/*.o $$out/kernel/.*.cmd && \
		$(MAKE) -C $$kdir M=$(CURDIR)/$$out $(if $(W),W=$(W)) modules; done; \
		[ $$n -gt 0 ] || { echo "error: no kernel build tree installed (linux-headers-*)" >&2; exit 1; }; }

# softib.ko for the debug kernel (tools/build-debug-kernel), built in a copy of the sources
# under build/debug/ so that it does not clobber the stock build; tools/vm-run --kernel debug
# loads build/debug/softib.ko.
module-debug:
	@dk=$$(tools/build-debug-kernel --print-path --no-build) || { echo "error: debug kernel not built (tools/build-debug-kernel)" >&2; exit 1; }; \
	rm -rf build/debug/kernel && mkdir -p build/debug/kernel && \
	cp Kbuild build/debug/ && cp kernel/*.[ch] build/debug/kernel/ && cp -a include build/debug/ && \
	$(MAKE) -C $$dk M=$(CURDIR)/build/debug modules

provider:
	$(MAKE) -C provider

# what users get (softib-tools): the others under tools/ and tests/ serve the tests and guests
tools:
	$(MAKE) -C tools/sib-pkey
	$(MAKE) -C tools/sib-link
	$(MAKE) -C tools/sib-cc
	$(MAKE) -C tools/load

load:
	$(MAKE) -C tools/load

perf:
	$(MAKE) -C tools/perf
pkey:
	$(MAKE) -C tools/sib-pkey
	$(MAKE) -C tools/sib-link
	$(MAKE) -C tools/sib-cc
	$(MAKE) -C tests/pkey
wire:
	$(MAKE) -C tests/ring-tamper
loop:
	$(MAKE) -C tests/loop
	$(MAKE) -C tests/odp
	$(MAKE) -C tests/dmabuf
doorbell:
	$(MAKE) -C tests/doorbell
field:
	$(MAKE) -C tests/field
limits:
	$(MAKE) -C tests/limits
apps:
	$(MAKE) -C tests/apps

# install by hand: the module and the provider, nothing else is built; the tools are
# install-tools (they need libnl-genl-3-dev). Do not mix with the softib-dkms package: DKMS
# installs into updates/dkms/, and depmod would pick one of the two copies.
install: install-module install-provider
	install -D -m 0644 man/softib.7 $(DESTDIR)$(mandir)/man7/softib.7

install-module: module
	@test -n "$(SIB_KVER)" || { tools/pick-kernel $(PICK_ARGS) >/dev/null; exit 1; }
	install -D -m 0644 softib.ko $(DESTDIR)/lib/modules/$(SIB_KVER)/updates/softib.ko
	install -D -m 0644 softib_db.ko $(DESTDIR)/lib/modules/$(SIB_KVER)/updates/softib_db.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(SIB_KVER); fi

install-provider: provider
	$(MAKE) -C provider install DESTDIR=$(DESTDIR)

install-tools: tools
	install -D -m 0755 tools/sib-pkey/sib-pkey $(DESTDIR)$(sbindir)/sib-pkey
	install -D -m 0755 tools/load/sib-load $(DESTDIR)$(bindir)/sib-load
	install -D -m 0644 man/sib-pkey.8 $(DESTDIR)$(mandir)/man8/sib-pkey.8
	install -D -m 0755 tools/sib-link/sib-link $(DESTDIR)$(sbindir)/sib-link
	install -D -m 0644 man/sib-link.8 $(DESTDIR)$(mandir)/man8/sib-link.8
	install -D -m 0755 tools/sib-cc/sib-cc $(DESTDIR)$(sbindir)/sib-cc
	install -D -m 0644 man/sib-cc.8 $(DESTDIR)$(mandir)/man8/sib-cc.8
	install -D -m 0644 man/sib-load.1 $(DESTDIR)$(mandir)/man1/sib-load.1

uninstall:
	@test -n "$(SIB_KVER)" || { tools/pick-kernel $(PICK_ARGS) >/dev/null; exit 1; }
	rm -f $(DESTDIR)/lib/modules/$(SIB_KVER)/updates/softib.ko $(DESTDIR)/lib/modules/$(SIB_KVER)/updates/softib_db.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(SIB_KVER); fi
	$(MAKE) -C provider uninstall DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)$(mandir)/man7/softib.7

uninstall-tools:
	rm -f $(DESTDIR)$(sbindir)/sib-pkey $(DESTDIR)$(bindir)/sib-load \
		$(DESTDIR)$(sbindir)/sib-cc $(DESTDIR)$(mandir)/man8/sib-cc.8 \
		$(DESTDIR)$(mandir)/man8/sib-pkey.8 $(DESTDIR)$(mandir)/man1/sib-load.1 \
		$(DESTDIR)$(sbindir)/sib-link $(DESTDIR)$(mandir)/man8/sib-link.8

# The Debian packages (debian/), built with dpkg-buildpackage in a copy of the tree under
# build/deb/src (dpkg-buildpackage writes the .debs into the parent directory: build/deb/);
# temporary files under build/deb/tmp. DEB_BUILD_OPTIONS passes through (default: noddebs,
# no -dbgsym packages).
DEB_BUILD_OPTIONS ?= noddebs
deb:
	@for t in dpkg-buildpackage dh dh_dkms; do command -v $$t >/dev/null || \
		{ echo "error: $$t not found: apt-get install dpkg-dev debhelper dh-dkms (or make deps)" >&2; exit 1; }; done
	rm -rf build/deb && mkdir -p build/deb/src build/deb/tmp
	@# the tree as git sees it (tracked and untracked files, not ignored ones), else all but build/
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -c -o --exclude-standard | perl -0 -ne 'chomp; print "$$_\0" if -e'; \
	else find . -path ./build -prune -o -path ./.git -prune -o -type f -print0; fi | \
		cpio -0 -pdm --quiet build/deb/src
	cd build/deb/src && TMPDIR=$(CURDIR)/build/deb/tmp DEB_BUILD_OPTIONS="$(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -us -uc -b
	rm -rf build/deb/src build/deb/tmp
	@ls -1 build/deb/*.deb

deps:
	tools/install-deps

# demo builds the module for the kernel that tools/vm-run boots by default
VM_KVER = $$(tools/vm-run --print-kernel | cut -d' ' -f1)

demo: deps
	$(MAKE) all KDIR= KVER="$(VM_KVER)"
	tools/demo

check: deps
	tests/check

check-full: deps
	tests/check --full

clean:
	rm -f *.ko *.mod *.mod.c *.mod.o *.o .*.cmd Module.symvers modules.order kernel/*.o kernel/.*.cmd kernel/*.mod* kernel/*.dwo
	-$(MAKE) -C provider clean
	-$(MAKE) -C tools/load clean
	-$(MAKE) -C tools/perf clean
	-$(MAKE) -C tools/sib-pkey clean
	-$(MAKE) -C tools/sib-link clean
	-$(MAKE) -C tools/sib-cc clean
	-$(MAKE) -C tests/pkey clean
	-$(MAKE) -C tests/ring-tamper clean
	-$(MAKE) -C tests/loop clean
	-$(MAKE) -C tests/odp clean
	-$(MAKE) -C tests/dmabuf clean
	-$(MAKE) -C tests/apps clean
	-$(MAKE) -C tests/field clean
	-$(MAKE) -C tests/doorbell clean
	-$(MAKE) -C tests/limits clean
	rm -rf build/check build/debug build/kernels build/deb
