# tools/kprof/kprof.mk: the host profiler build/kprof, its ASan+UBSan twin
# build/kprof-asan, the cmocka unit tests build/kprof-unit and the fixture
# ELFs they read. Included by the top-level Makefile, which sets BUILD,
# HOSTCC and CC (the i686 cross compiler).
#
#   kprof-all    build/kprof
#   kprof-unit   build/kprof-unit, build/kprof-asan and the fixtures (builds only;
#                the test runner executes build/kprof-unit)
#   kprof-bench  time build/kprof against addr2line on a 1 MiB-text ELF
#   fuzz         build a libFuzzer target per reader (and the dump header, ELF) with
#                clang and run each for FUZZTIME seconds from its saved inputs
#                in tools/kprof/fuzz/NAME; crashes land there too, and inputs
#                that add coverage are merged back (commit them: kprof-unit
#                replays them all)

KPROF_SRC  := tools/kprof
KPROF_OBJ  := $(BUILD)/tools/kprof
# every rd_*.c is a reader and every wr_*.c a writer (listed in pipeline.c)
KPROF_READERS := $(basename $(notdir $(wildcard $(KPROF_SRC)/rd_*.c)))
KPROF_WRITERS := $(basename $(notdir $(wildcard $(KPROF_SRC)/wr_*.c)))
KPROF_CORE := util kpinfo dump pipeline symbolize elffuzz profile lines disasm $(KPROF_READERS) $(KPROF_WRITERS) \
	stacks unwind unwind_build
KPROF_TESTS := test_main test_util test_parse test_cli test_export test_bugs test_fuzz test_annotate

KPROF_PKGS   := libelf libdw capstone
KPROF_PKGCF  := $(shell pkg-config --cflags $(KPROF_PKGS) 2>/dev/null || echo -I/usr/include/capstone)
KPROF_LIBS   := $(shell pkg-config --libs $(KPROF_PKGS) 2>/dev/null || echo -ldw -lelf -lcapstone) \
	-lprotobuf-c -lz -lm
# pprof's profile.proto, encoded by protobuf-c: protoc-c writes the C
KPROF_GEN    := $(KPROF_OBJ)/gen
KPROF_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -MD -MP -Iinclude -I$(KPROF_SRC) -I$(KPROF_GEN) \
	$(KPROF_PKGCF)
KPROF_SAN    := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

KPROF_OBJS      := $(patsubst %,$(KPROF_OBJ)/%.o,main $(KPROF_CORE)) $(KPROF_OBJ)/pb.o
KPROF_ASAN_CORE := $(patsubst %,$(KPROF_OBJ)/asan/%.o,$(KPROF_CORE)) $(KPROF_OBJ)/asan/pb.o
KPROF_ASAN_OBJS := $(KPROF_OBJ)/asan/main.o $(KPROF_ASAN_CORE)
KPROF_TEST_OBJS := $(patsubst %,$(KPROF_OBJ)/asan/%.o,$(KPROF_TESTS))
KPROF_FIXTURES  := $(patsubst %,$(KPROF_OBJ)/%.elf,fixture fixture-stripped fixture-noid fixture64 fixture-nested \
	fixture-inline fixture-frames)

.PHONY: kprof-all kprof-unit kprof-bench fuzz
kprof-all: $(BUILD)/kprof
kprof-unit: $(BUILD)/kprof-unit $(BUILD)/kprof-asan $(KPROF_FIXTURES)

# Run the tools/deps.sh check first when the top-level Makefile has one.
KPROF_ORDER := $(DEPS_OK)

$(KPROF_GEN)/profile.pb-c.c $(KPROF_GEN)/profile.pb-c.h: $(KPROF_SRC)/profile.proto | $(KPROF_ORDER)
	@mkdir -p $(KPROF_GEN)
	$(call quiet,PROTOC,$@)protoc-c --c_out=$(KPROF_GEN) --proto_path=$(KPROF_SRC) profile.proto

$(filter-out %/pb.o %/unwind_build.o,$(KPROF_OBJS)): $(KPROF_OBJ)/%.o: $(KPROF_SRC)/%.c | $(KPROF_ORDER)
	@mkdir -p $(@D)
	$(call quiet,HOSTCC,$@)$(HOSTCC) $(KPROF_CFLAGS) -c $< -o $@

$(filter-out %/pb.o %/unwind_build.o,$(KPROF_ASAN_OBJS)): $(KPROF_OBJ)/asan/%.o: $(KPROF_SRC)/%.c | $(KPROF_ORDER)
	@mkdir -p $(@D)
	$(call quiet,HOSTCC,$@)$(HOSTCC) $(KPROF_CFLAGS) $(KPROF_SAN) -c $< -o $@

# the unwind-table builder is the kernel's own file, compiled here too
# (kprof unwind shows its tables, the ehframe fuzz target fuzzes it)
$(KPROF_OBJ)/unwind_build.o: kernel/prof/unwind_build.c | $(KPROF_ORDER)
	@mkdir -p $(@D)
	$(HOSTCC) $(KPROF_CFLAGS) -c $< -o $@
$(KPROF_OBJ)/asan/unwind_build.o: kernel/prof/unwind_build.c | $(KPROF_ORDER)
	@mkdir -p $(@D)
	$(HOSTCC) $(KPROF_CFLAGS) $(KPROF_SAN) -c $< -o $@
$(KPROF_OBJ)/fuzz/unwind_build.o: kernel/prof/unwind_build.c | $(KPROF_ORDER)
	@mkdir -p $(@D)
	$(FUZZCC) $(KPROF_FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(KPROF_FUZZ_SAN) -c $< -o $@

# the generated encoder, and what includes its header
$(KPROF_OBJ)/pb.o: $(KPROF_GEN)/profile.pb-c.c
	$(call quiet,HOSTCC,$@)$(HOSTCC) -O2 -g -I$(KPROF_GEN) -c $< -o $@
$(KPROF_OBJ)/asan/pb.o: $(KPROF_GEN)/profile.pb-c.c
	@mkdir -p $(@D)
	$(call quiet,HOSTCC,$@)$(HOSTCC) -g -I$(KPROF_GEN) $(KPROF_SAN) -c $< -o $@
$(KPROF_OBJ)/fuzz/pb.o: $(KPROF_GEN)/profile.pb-c.c
	@mkdir -p $(@D)
	$(FUZZCC) -O1 -g -I$(KPROF_GEN) -fsanitize=fuzzer-no-link $(KPROF_FUZZ_SAN) -c $< -o $@
$(KPROF_OBJ)/wr_pprof.o $(KPROF_OBJ)/asan/wr_pprof.o $(KPROF_OBJ)/fuzz/wr_pprof.o \
	$(KPROF_OBJ)/asan/test_bugs.o: $(KPROF_GEN)/profile.pb-c.h

# the tests read tests/fixture.c for its line markers
$(KPROF_TEST_OBJS): $(KPROF_OBJ)/asan/%.o: $(KPROF_SRC)/%.c | $(KPROF_ORDER)
	@mkdir -p $(@D)
	$(call quiet,HOSTCC,$@)$(HOSTCC) $(KPROF_CFLAGS) $(KPROF_SAN) -DKPROF_SRCDIR='"$(abspath $(KPROF_SRC))"' -c $< -o $@

$(BUILD)/kprof: $(KPROF_OBJS)
	$(call quiet,HOSTLD,$@)$(HOSTCC) -o $@ $^ $(KPROF_LIBS)

$(BUILD)/kprof-asan: $(KPROF_ASAN_OBJS) $(KPROF_OBJ)/asan/pb.o
	$(call quiet,HOSTLD,$@)$(HOSTCC) $(KPROF_SAN) -o $@ $^ $(KPROF_LIBS)

$(BUILD)/kprof-unit: $(KPROF_TEST_OBJS) $(KPROF_ASAN_CORE)
	$(call quiet,HOSTLD,$@)$(HOSTCC) $(KPROF_SAN) -o $@ $^ -lcmocka $(KPROF_LIBS)

# The fixture kernel: known functions at known lines, text at 1 MiB + 4 KiB.
KPROF_FIXFLAGS := -g -O0 -ffreestanding -nostdlib -static -fno-pic -no-pie \
	-fno-asynchronous-unwind-tables -Wl,-e,_start -Wl,-Ttext-segment=0x100000

$(KPROF_OBJ)/fixture.elf: $(KPROF_SRC)/tests/fixture.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -m32 $(KPROF_FIXFLAGS) -Wl,--build-id -o $@ $<

$(KPROF_OBJ)/fixture-stripped.elf: $(KPROF_SRC)/tests/fixture.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -m32 $(KPROF_FIXFLAGS) -Wl,--build-id -s -o $@ $<

$(KPROF_OBJ)/fixture-noid.elf: $(KPROF_SRC)/tests/fixture.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -m32 $(KPROF_FIXFLAGS) -Wl,--build-id=none -o $@ $<

# nested and aliased symbols, which libdwfl names
$(KPROF_OBJ)/fixture-nested.elf: $(KPROF_SRC)/tests/nested.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -m32 $(KPROF_FIXFLAGS) -Wl,--build-id -o $@ $<

# a function inlined into another (-O2): its frame is in the DWARF only
$(KPROF_OBJ)/fixture-inline.elf: $(KPROF_SRC)/tests/inline.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -m32 $(KPROF_FIXFLAGS) -O2 -Wl,--build-id -o $@ $<

# leaves with and without frames, for the repair of stacks
$(KPROF_OBJ)/fixture-frames.elf: $(KPROF_SRC)/tests/frames.S
	@mkdir -p $(@D)
	$(CC) -m32 $(KPROF_FIXFLAGS) -Wl,--build-id -o $@ $<

# a 64-bit ELF, which kprof must refuse
$(KPROF_OBJ)/fixture64.elf: $(KPROF_SRC)/tests/fixture.c
	@mkdir -p $(@D)
	$(call quiet,HOSTLD,$@)$(HOSTCC) $(KPROF_FIXFLAGS) -Wl,--build-id -o $@ $<

kprof-bench: $(BUILD)/kprof
	@sh $(KPROF_SRC)/bench.sh $(BUILD) $(CC)

# ---- fuzzing: one target per reader, plus the dump header and the ELF ----
FUZZCC   ?= clang
FUZZTIME ?= 60
KPROF_FUZZ_NAMES := $(patsubst rd_%,%,$(KPROF_READERS)) dump elf ehframe
KPROF_FUZZ_BINS  := $(patsubst %,$(BUILD)/fuzz-%,$(KPROF_FUZZ_NAMES))
KPROF_FUZZ_CORE  := $(patsubst %,$(KPROF_OBJ)/fuzz/%.o,$(KPROF_CORE))
KPROF_FUZZ_LINK  := $(KPROF_FUZZ_CORE) $(KPROF_OBJ)/fuzz/pb.o
KPROF_FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=undefined
KPROF_FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -Iinclude -I$(KPROF_SRC) -I$(KPROF_GEN) \
	$(KPROF_PKGCF)

$(filter-out %/unwind_build.o,$(KPROF_FUZZ_CORE)): $(KPROF_OBJ)/fuzz/%.o: $(KPROF_SRC)/%.c | $(KPROF_ORDER)
	@command -v $(FUZZCC) >/dev/null || { echo "fuzz: no $(FUZZCC): apt-get install clang" >&2; exit 1; }
	@mkdir -p $(@D)
	$(FUZZCC) $(KPROF_FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(KPROF_FUZZ_SAN) -c $< -o $@

# a dump the reader takes goes on through the symbolizer on the fixture kernel
$(KPROF_FUZZ_BINS): $(BUILD)/fuzz-%: $(KPROF_SRC)/fuzz.c $(KPROF_FUZZ_LINK) $(KPROF_OBJ)/fixture.elf
	$(FUZZCC) $(KPROF_FUZZ_CFLAGS) -fsanitize=fuzzer $(KPROF_FUZZ_SAN) -DFUZZ_TARGET='"$*"' \
		-DFUZZ_ELF='"$(abspath $(KPROF_OBJ)/fixture.elf)"' \
		-o $@ $< $(KPROF_FUZZ_LINK) $(KPROF_LIBS)

fuzz: $(KPROF_FUZZ_BINS)
	@for t in $(KPROF_FUZZ_NAMES); do \
		work=$(BUILD)/fuzz/corpus-$$t saved=$(KPROF_SRC)/fuzz/$$t; \
		mkdir -p $$work $$saved; \
		echo "fuzz: $$t for $(FUZZTIME) s"; \
		$(BUILD)/fuzz-$$t -max_total_time=$(FUZZTIME) -print_final_stats=1 \
			-artifact_prefix=$$saved/crash- $$work $$saved || exit 1; \
		$(BUILD)/fuzz-$$t -merge=1 $$saved $$work 2>&1 | tail -1; \
	done

-include $(KPROF_OBJS:.o=.d) $(KPROF_ASAN_OBJS:.o=.d) $(KPROF_TEST_OBJS:.o=.d)
