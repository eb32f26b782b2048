# softib top-level Makefile: module (kbuild, see Kbuild), provider, install, demo, check.
# `make help` lists the targets.

# Kernel build tree: the running kernel's, else the newest Debian linux-headers-*-amd64.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then echo /lib/modules/$$(uname -r)/build; \
	else ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1; fi)
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
DESTDIR ?=

.PHONY: all module module-debug provider load perf pkey wire loop doorbell field limits install deps demo check check-vm clean help

all: module provider load perf pkey wire loop doorbell field limits

help:
	@echo "make [all]      build softib.ko, softib_db.ko (KDIR=$(KDIR)) and provider/libsoftib-rdmav34.so"
	@echo "make module     only the kernel module (W=1 for extra warnings)"
	@echo "make provider   only the rdma-core provider"
	@echo "make load       only tools/load/sib-load, the verifying RC load tool"
	@echo "make perf       only tools/perf (sib-memcpy, sib-memuse: helpers of tools/bench)"
	@echo "make pkey       only tools/sib-pkey (P_Key tables) and tests/pkey/pkey-traffic"
	@echo "make wire       only tests/ring-tamper/ring-tamper (tampered rings, wire stage)"
	@echo "make loop       only tests/loop/loop-check (same-device fast path, loopback stage)"
	@echo "make doorbell   only tests/doorbell/sib-doorbell (doorbell stage)"
	@echo "make field      only tests/field/field-check (bug-report cases, interop stage)"
	@echo "make limits     only tests/limits/sib-limits (module parameter limits, lifecycle stage)"
	@echo "make module-debug  softib.ko, softib_db.ko for tools/build-debug-kernel's kernel, in build/debug/"
	@echo "make install    module to /lib/modules/<kver>/updates (+ depmod), provider + softib.driver"
	@echo "make deps       install missing Debian packages (as root)"
	@echo "make demo       build, boot one QEMU guest, run verbs programs over sib0"
	@echo "make check      unit/ABI tests, VM traffic tests, rdma-core python suite"

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "error: no kernel build tree (install linux-headers-amd64 or set KDIR=)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

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

load:
	$(MAKE) -C tools/load

perf:
	$(MAKE) -C tools/perf
pkey:
	$(MAKE) -C tools/sib-pkey
	$(MAKE) -C tests/pkey
wire:
	$(MAKE) -C tests/ring-tamper
loop:
	$(MAKE) -C tests/loop
doorbell:
	$(MAKE) -C tests/doorbell
field:
	$(MAKE) -C tests/field
limits:
	$(MAKE) -C tests/limits

install: all
	@test -n "$(KVER)" || { echo "error: cannot tell the kernel release of $(KDIR)" >&2; exit 1; }
	install -D -m 0644 softib.ko $(DESTDIR)/lib/modules/$(KVER)/updates/softib.ko
	install -D -m 0644 softib_db.ko $(DESTDIR)/lib/modules/$(KVER)/updates/softib_db.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -C provider install DESTDIR=$(DESTDIR)

deps:
	tools/install-deps

# demo and check build the module for the kernel that tools/vm-run boots
VM_KDIR = $$(tools/vm-run --print-kernel | cut -d' ' -f1 | sed 's|.*|/lib/modules/&/build|')

demo: deps
	$(MAKE) all KDIR="$(VM_KDIR)"
	tools/demo

check: deps
	tests/check

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C provider clean
	-$(MAKE) -C tools/load clean
	-$(MAKE) -C tools/perf clean
	-$(MAKE) -C tools/sib-pkey clean
	-$(MAKE) -C tests/pkey clean
	-$(MAKE) -C tests/ring-tamper clean
	-$(MAKE) -C tests/loop clean
	-$(MAKE) -C tests/field clean
	-$(MAKE) -C tests/doorbell clean
	-$(MAKE) -C tests/limits clean
	rm -rf build/check build/debug
