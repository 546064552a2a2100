# User programs and their libc, included by the top-level Makefile.
# Adding a program: write user/NAME.c and add NAME to USER_PROGS below.
# A program made of several files also gets one line like the usertests one.

USER_PROGS := sh echo cat ls ps kill cksum spin kwork fault sleep mkdir rm \
	hog usertests tickcost put calls hotcold profiltest \
	flood sysfuzz heat heattest accwork
# OS/2's DosProfile: the driver, its workload and its tests
USER_PROGS += dosprof dpwork dptest
# Windows CE's Monte Carlo profiler: prof on, prof off, prof top
USER_PROGS += prof mcwork manysyms
# call stacks of known shape, for the stack engine
USER_PROGS += stackwork
# Programs also installed without symbols, as /bin/NAME.strip: what a
# profiler shows for code it cannot name.
USER_STRIP := mcwork

# Programs also built for profiling, as /bin/NAME.pg: compiled with -pg and
# linked with gcrt0.o (see the README's gprof section).
USER_PG := calls hotcold kwork profiltest tickcost accwork sysfuzz

# The real programs, static glibc Linux programs (lua, minigzip, bzip2,
# libctest), and their workloads: user/debian/debian.mk
include user/debian/debian.mk

USER_LIB := syscall.c errno.c string.c stdlib.c printf.c malloc.c getline.c \
	sysstat.c gmon.c mcount.S

USER_BINS := $(USER_PROGS:%=$(BUILD)/user/bin/%) $(USER_PG:%=$(BUILD)/user/bin/%.pg) \
	$(USER_STRIP:%=$(BUILD)/user/bin/%.strip)
USER_LIBOBJS := $(patsubst %,$(BUILD)/user/lib/%.o,$(basename $(USER_LIB)))
USER_LIBC := $(BUILD)/user/libc.a
# crt0 is linked first, by name: an archive member nobody calls might be left out.
USER_CRT0 := $(BUILD)/user/lib/crt0.o
USER_GCRT0 := $(BUILD)/user/lib/gcrt0.o

# Extra objects for programs of more than one file.
$(BUILD)/user/bin/sh: $(BUILD)/user/shbuiltin.o $(BUILD)/user/shexport.o $(BUILD)/user/shkpr.o \
	$(BUILD)/user/shglob.o
$(BUILD)/user/bin/usertests: $(BUILD)/user/usertests_mem.o $(BUILD)/user/usertests_fs.o \
	$(BUILD)/user/usertests_proc.o
$(BUILD)/user/bin/dpwork $(BUILD)/user/bin/dptest: $(BUILD)/user/dppages.o

# Our own headers only: -nostdinc keeps the host's libc headers out, while
# gcc's freestanding <stdint.h>, <stdarg.h>, <stddef.h> stay available.
UCFLAGS := $(XCFLAGS) -nostdinc -isystem $(shell $(CC) -print-file-name=include) -Iuser/include

# The link address comes from memlayout.h.
USER_LINK_ADDR := $(call memlayout,USER_LINK)

# gcc's own ar wrapper sits beside the compiler, so no extra variable is needed.
USER_AR := $(CC)-ar

$(BUILD)/user/%.o: user/%.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(UCFLAGS) -c -o $@ $<

$(BUILD)/user/lib/%.o: user/lib/%.S
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(UCFLAGS) -c -o $@ $<

$(USER_LIBC): $(USER_LIBOBJS)
	$(Q)rm -f $@
	$(call quiet,AR,$@)$(USER_AR) rcs $@ $^

$(BUILD)/user/bin/%: $(BUILD)/user/%.o $(USER_CRT0) $(USER_LIBC) user/user.ld include/abi/memlayout.h
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(LD) -m elf_i386 -nostdlib -static --build-id -T user/user.ld \
		--defsym=USER_LINK=$(USER_LINK_ADDR) \
		-o $@ $(USER_CRT0) $(filter-out $(USER_CRT0),$(filter %.o,$^)) $(USER_LIBC) $(LIBGCC)

# The profiled build: gcrt0 after crt0, and the program's own code with
# mcount calls (the library is not profiled, so its time goes to its own
# functions but it has no call counts). No sibling calls: a call turned
# into a jump would be counted to the caller's caller.
PGFLAGS := -pg -fno-optimize-sibling-calls
$(BUILD)/user/pg/%.o: user/%.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(UCFLAGS) $(PGFLAGS) -c -o $@ $<

$(BUILD)/user/bin/%.pg: $(BUILD)/user/pg/%.o $(USER_CRT0) $(USER_GCRT0) $(USER_LIBC) user/user.ld include/abi/memlayout.h
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(LD) -m elf_i386 -nostdlib -static --build-id -T user/user.ld \
		--defsym=USER_LINK=$(USER_LINK_ADDR) \
		-o $@ $(USER_CRT0) $(USER_GCRT0) $< $(USER_LIBC) $(LIBGCC)

# manysyms: 5,000 routines, generated, for the cost of a symbol lookup
# in a big table
MANYSYMS := 5000
$(BUILD)/user/gen/manysyms.c: user/mksyms.sh
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)sh user/mksyms.sh $(MANYSYMS) > $@.tmp && mv $@.tmp $@
$(BUILD)/user/manysyms.o: $(BUILD)/user/gen/manysyms.c
	$(call quiet,CC,$@)$(CC) $(UCFLAGS) -c -o $@ $<

$(BUILD)/user/bin/%.strip: $(BUILD)/user/bin/%
	$(call quiet,OBJCOPY,$@)$(OBJCOPY) --strip-all $< $@

# The objects are intermediate only by make's rules; keep them for debugging.
.SECONDARY: $(USER_PROGS:%=$(BUILD)/user/%.o) $(USER_PG:%=$(BUILD)/user/pg/%.o)

-include $(wildcard $(BUILD)/user/*.d $(BUILD)/user/lib/*.d $(BUILD)/user/pg/*.d)

# crt0.o is reached only through pattern rules; keep make from deleting it
# as an intermediate file (which would relink every program next time).
.SECONDARY: $(USER_CRT0) $(USER_GCRT0)

# Linux programs: glibc's, built by the ordinary cross compiler, unmodified
# but for the link address, which is where user space is (memlayout.h).
# They run through the Linux system-call interface (kernel/linux.c).
LINUX_PROGS := hello lfuzz callcost sigtest gprofwork
LINUX_BINS := $(LINUX_PROGS:%=$(BUILD)/user/bin/%)
USER_BINS += $(LINUX_BINS)
# -ffile-prefix-map, as for the kernel: the checkout's directory is not in
# the DWARF, so every checkout builds the same bytes (and a program's
# spawn, which reads them, takes the same instructions: the samples of a
# profile fall on the same instructions in any checkout)
LINUX_CFLAGS := -static -O2 -g -ffile-prefix-map=$(CURDIR)=.

$(LINUX_BINS): $(BUILD)/user/bin/%: user/linux/%.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(LINUX_CFLAGS) -o $@ $< -lm

# omitfp, a known call tree, without frame pointers (the compiler's -O2
# default on i386, said outright), with them in half of it, and with them
# everywhere: the stack engine walks all three by their unwind tables
OMITFP_BINS := $(patsubst %,$(BUILD)/user/bin/%,omitfp omitfp-mix omitfp-fp)
USER_BINS += $(OMITFP_BINS)
OMITFP_SRC := user/linux/omitfp.c user/linux/omitfp_leaf.c user/linux/omitfp.h
$(BUILD)/user/bin/omitfp: $(OMITFP_SRC)
	@mkdir -p $(@D)
	$(CC) $(LINUX_CFLAGS) -fomit-frame-pointer -o $@ $(filter %.c,$^)
$(BUILD)/user/bin/omitfp-mix: $(OMITFP_SRC)
	@mkdir -p $(@D) $(BUILD)/user/linux
	$(CC) $(LINUX_CFLAGS) -fno-omit-frame-pointer -c -o $(BUILD)/user/linux/omitfp-mix.o user/linux/omitfp.c
	$(CC) $(LINUX_CFLAGS) -fomit-frame-pointer -o $@ $(BUILD)/user/linux/omitfp-mix.o user/linux/omitfp_leaf.c
$(BUILD)/user/bin/omitfp-fp: $(OMITFP_SRC)
	@mkdir -p $(@D)
	$(CC) $(LINUX_CFLAGS) -fno-omit-frame-pointer -o $@ $(filter %.c,$^)

# glibc's own gprof: -pg (gcrt1.o, mcount, profil by setitimer and SIGPROF),
# as /bin/NAME.pg beside the project's -pg programs
LINUX_PG := gprofwork
LINUX_PG_BINS := $(LINUX_PG:%=$(BUILD)/user/bin/%.pg)
USER_BINS += $(LINUX_PG_BINS)

$(LINUX_PG_BINS): $(BUILD)/user/bin/%.pg: user/linux/%.c
	@mkdir -p $(@D)
	$(CC) $(LINUX_CFLAGS) -pg -o $@ $< -lm

# The same program as a static PIE (loaded at ELF_DYN_BASE, elf.h), and
# ones spawn refuses: dynamically linked (PT_INTERP), cut short, for
# another machine (e_machine 62, x86-64). They are built outside
# build/user/bin, where the host tool reads every program as i386 ELF.
LINUX_VARIANTS := $(patsubst %,$(BUILD)/user/linux/%,hello.pie hello.dyn hello.cut hello.amd64)
USER_BINS += $(LINUX_VARIANTS)
$(BUILD)/user/linux/hello.pie: user/linux/hello.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -static-pie -O2 -g -o $@ $< -lm
$(BUILD)/user/linux/hello.dyn: user/linux/hello.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -O2 -g -o $@ $< -lm
$(BUILD)/user/linux/hello.cut: $(BUILD)/user/bin/hello
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)head -c 8192 $< > $@
$(BUILD)/user/linux/hello.amd64: $(BUILD)/user/bin/hello
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)cp $< $@.tmp && printf '\076' | dd of=$@.tmp bs=1 seek=18 conv=notrunc status=none && mv $@.tmp $@
