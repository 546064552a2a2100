# kprof-os: one dependency graph for the kernel, the user programs, the
# initrd, the ISO and the host tool. `make help` lists the targets.

BUILD    := build
CC       = i686-linux-gnu-gcc
LD       = i686-linux-gnu-ld
OBJCOPY  = i686-linux-gnu-objcopy
OBJDUMP  = i686-linux-gnu-objdump
NM       = i686-linux-gnu-nm
NASM     = nasm
HOSTCC   = gcc
PYTHON   = python3
QEMU     = qemu-system-i386

# A missing tool runs the dependency script (which installs it as root, or
# prints the apt-get line) before the rest of this file is even read, so the
# $(shell ...) probes below see the installed tools.
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell tools/deps.sh >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error missing tools: run the apt-get line above)
endif
endif
DEPS_OK :=

# Two phases: what a user may override, then what the target needs.
CFLAGS  ?= -O2 -g
# -ffile-prefix-map: no checkout's path in the images (the DWARF names the
# files relative to the top), so any checkout builds the same bytes and
# the same build-ids. nasm has no such map (its DWARF holds the absolute
# directory), so the .asm files are built without DWARF: symbols only.
XCFLAGS := $(CFLAGS) -m32 -march=i686 -ffreestanding -nostdlib -fno-pic -fno-pie \
	-ffile-prefix-map=$(CURDIR)=. \
	-fno-stack-protector -fno-omit-frame-pointer -fno-builtin \
	-Wall -Wextra -Wmissing-prototypes -Werror -std=gnu11 -MD -MP -Iinclude
LIBGCC  := $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)
# V=1 shows every command in full; by default a build step is one short
# line, "  CC       build/kernel/main.o", as the Linux kernel's build
# prints (a failing command's own messages still show).
V ?= 0
ifeq ($(V),1)
Q :=
quiet =
else
Q := @
quiet = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

# A constant of include/abi/memlayout.h as a number for the linkers and
# nasm (KERN_LINK's "(0xC0000000u + 0x100000u)" -> 0xc0100000).
memlayout = $(shell printf '0x%x' $$(( $$(echo $(1) | \
	$(CC) -E -P -Iinclude -include abi/memlayout.h - | tr -d 'u') )))


.PHONY: all run profile flamegraph demo test bench docs clean help
all: $(BUILD)/kernel.elf $(BUILD)/os.iso kprof-all

include kernel/kernel.mk
include user/user.mk
include tools/kprof/kprof.mk

# ---- initrd: a ustar archive of the user programs, mounted at /bin; the
# real programs and their workloads too (user/debian/debian.mk), and the
# programs a user brings: PROG='path/to/prog ...', each as /bin/NAME
# (an ELF without its DWARF, which the host reads from the file given: the
# guest's copy, and so its spawn, is the same wherever it was built; any
# static i386 executable, e.g. from i686-linux-gnu-gcc -static). The list
# is kept in $(BUILD)/initrd.prog, so a change of PROG remakes the initrd.
PROG ?=
PROG_FILES := $(abspath $(PROG))
$(BUILD)/initrd.prog: FORCE
	@mkdir -p $(@D)
	@for p in $(PROG_FILES); do test -f "$$p" || { echo "PROG: no file $$p" >&2; exit 1; }; done
	@t=$@.$$$$.tmp; echo '$(PROG_FILES)' > $$t; cmp -s $$t $@ || mv $$t $@; rm -f $$t

$(BUILD)/initrd.tar: $(USER_BINS) $(DEB_INITRD) $(PROG_FILES) $(BUILD)/initrd.prog | $(DEPS_OK)
	@rm -rf $(BUILD)/initrd && mkdir -p $(BUILD)/initrd/bin
	$(call quiet,INITRD,$@)cp $(USER_BINS) $(BUILD)/initrd/bin/
	$(call DEB_INITRD_INSTALL,$(BUILD)/initrd)
	$(if $(PROG_FILES),$(Q)for p in $(PROG_FILES); do \
		$(OBJCOPY) --strip-debug $$p $(BUILD)/initrd/bin/$$(basename $$p) 2>/dev/null || \
		cp $$p $(BUILD)/initrd/bin/ || exit 1; done)
	$(Q)tar --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name \
		-C $(BUILD)/initrd -cf $@ bin

# ---- ISO ----
# (the temporary files above and here are named by the shell's pid: two
# makes at once, as the suite's make profile tests run, each write their own)
CMDLINE ?=
$(BUILD)/iso/boot/grub/grub.cfg: boot/grub.cfg.in FORCE
	@mkdir -p $(@D)
	@t=$@.$$$$.tmp; sed 's|@CMDLINE@|$(CMDLINE)|' $< > $$t; cmp -s $$t $@ || mv $$t $@; rm -f $$t

$(BUILD)/os.iso: $(BUILD)/kernel.elf $(BUILD)/initrd.tar $(BUILD)/iso/boot/grub/grub.cfg
	$(call quiet,ISO,$@)cp $(BUILD)/kernel.elf $(BUILD)/iso/boot/kernel.elf
	$(Q)cp $(BUILD)/initrd.tar $(BUILD)/iso/boot/initrd.tar
	$(Q)grub-mkrescue -o $@ $(BUILD)/iso 2>$(BUILD)/grub-mkrescue.log || { cat $(BUILD)/grub-mkrescue.log; exit 1; }

FORCE:

# ---- running ----
# tests/qemu/qemu.py builds QEMU's command line. ARGS: kernel command-line
# words (make run ARGS='hz=5000'); QEMUFLAGS: more QEMU arguments for run and
# profile; ICOUNT=0: make run without -icount (guest time is host time).
ICOUNT ?= 1
ARGS ?=
QEMUFLAGS ?=

run: all
	@echo "kprof-os: booting; type at the \$$ prompt, 'halt' to power off, Ctrl-A x to leave QEMU"
	$(PYTHON) tests/qemu/vm.py --interactive $(if $(filter 1,$(ICOUNT)),--icount) \
		--cmdline='$(ARGS)' --qemu-flags='$(QEMUFLAGS)'

# make profile CMD='kwork loop 1000000 50': one command line, profiled in a
# fresh QEMU under -icount by ENGINE (default stacks; ENGINE= lists them); the
# dumps stay in OUT.
OUT ?= $(BUILD)/profile
KPROFFLAGS ?=
profile: all
	@if [ "$(origin ENGINE)" = "command line" ] || [ "$(origin ENGINE)" = environment ]; then \
		engine='$(ENGINE)'; else engine=stacks; fi; \
	if [ -z "$$KPROF_CMD" ] && [ -n "$$engine" ]; then \
		echo "usage: make profile CMD='stackwork tree 40' [PROG='path/to/prog ...'] [ENGINE=NAME] [HZ=N] [TIMEOUT=S] [ACCURACY=1] [ARGS='boot words'] [OUT=dir] [KPROFFLAGS='--lines']"; \
		$(PYTHON) tests/qemu/profile.py --list; exit 2; fi; \
	$(PYTHON) tests/qemu/profile.py --engine "$$engine" --out '$(OUT)' \
		--cmdline='$(ARGS)$(if $(HZ), hz=$(HZ))' --timeout='$(or $(TIMEOUT),300)' \
		$(if $(filter 1,$(ACCURACY)),--accuracy) \
		--kprof-args='$(KPROFFLAGS)' --qemu-flags='$(QEMUFLAGS)' -- "$$KPROF_CMD"
profile: export KPROF_CMD = $(CMD)
# the host's ELFs of PROG, for the symbolizer (tests/qemu/engines.py)
profile flamegraph: export KPROF_PROGS = $(PROG_FILES)

# make flamegraph CMD='stackwork tree 40': the stack engine around one
# command line; the folded stacks and the SVG flame graph in build/flame/
flamegraph: all
	@test -n "$$KPROF_CMD" || { echo "usage: make flamegraph CMD='stackwork tree 40' [ARGS='hz=10000']"; exit 2; }
	@$(PYTHON) tests/qemu/profile.py --engine stacks --out $(BUILD)/flame --cmdline='$(ARGS)' \
		--kprof-args='$(KPROFFLAGS)' --qemu-flags='$(QEMUFLAGS)' -- "$$KPROF_CMD"
flamegraph: export KPROF_CMD = $(CMD)

demo: all
	$(PYTHON) tests/qemu/demo.py

test: all kprof-unit
	$(PYTHON) tests/qemu/run.py --no-make

bench: all
	$(PYTHON) tests/qemu/bench.py

# make docs: every pasted output of the manual remade from a fresh run and
# written back into its page (tests/qemu/docs.py; the test docs_manual compares)
docs: all
	$(PYTHON) tests/qemu/docs.py --write

# The system-call fuzzer, long: FUZZSEEDS boots of FUZZCALLS calls each.
# `fuzz` also runs the host tool's fuzz targets (tools/kprof/kprof.mk).
FUZZSEEDS ?= 4
FUZZCALLS ?= 200000
.PHONY: fuzz fuzz-kernel
fuzz: fuzz-kernel
fuzz-kernel: all
	$(PYTHON) tests/qemu/fuzz.py --seeds $(FUZZSEEDS) --calls $(FUZZCALLS) --cmdline '$(ARGS)'

clean:
	rm -rf $(BUILD)

help:
	@echo "make          build kernel, user programs, initrd, ISO and host tool"
	@echo "              (a short line a step; V=1 prints every command in full)"
	@echo "make run      boot the ISO in QEMU on this terminal (ARGS='hz=5000' for the command line,"
	@echo "              ICOUNT=0 without -icount); ^C goes to the guest, Ctrl-A x leaves QEMU;"
	@echo "              each session's exports are unpacked under build/run/N as they arrive"
	@echo "make profile  CMD='stackwork tree 40': profile one command line and print the report;"
	@echo "              PROG='path/to/prog ...' puts your own static i386 programs in /bin first"
	@echo "              (ENGINE=stacks|devkprof|profil|heat|dosprof|mc, ENGINE= lists them; HZ=N,"
	@echo "              TIMEOUT=S, ACCURACY=1, ARGS=..., OUT=build/profile, KPROFFLAGS='--lines')"
	@echo "make flamegraph CMD='stackwork tree 40': call stacks of one command line: folded,"
	@echo "              SVG flame graph, speedscope, pprof and perf.data in build/flame/"
	@echo "make demo     every engine once on its bundled workload, each report's head"
	@echo "make test     host unit tests and the QEMU serial-console suite"
	@echo "make docs     remake the manual's pasted outputs from fresh runs (tests/qemu/docs.py)"
	@echo "make bench    benchmarks: instruction counts under icount, host tool wall-clock;"
	@echo "              goals met or MISSED, changes from tests/qemu/bench-baseline.md; build/bench.md"
	@echo "make fuzz     run the host tool's fuzz targets, FUZZTIME seconds each (default 60)"
	@echo "make fuzz-kernel  sysfuzz in FUZZSEEDS boots of FUZZCALLS calls (ARGS= kernel options)"
	@echo "make clean    remove build/"
	@echo "make help     this list"
