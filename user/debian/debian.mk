# The real programs: ordinary static glibc i386 Linux programs, included by
# user/user.mk. Debian bookworm's Lua 5.4 interpreter, zlib's minigzip and
# bzip2, from the source packages pinned in user/debian/sources (fetched
# once into build/src/PACKAGE/ by tools/deps.sh sources), and libctest, the
# project's own glibc program. Each is linked unstripped, with its DWARF,
# as build/user/bin/NAME, where the host tools look for a program's ELF
# (tests/qemu/engines.py); the initrd gets a copy without the DWARF but
# with the symbol table (build/debian/bin/NAME) as /bin/NAME: the kernel's
# engines name functions from it (the Monte Carlo tables, the symbolized
# console reports), the host symbolizer matches the two by build-id. The
# Lua workloads user/debian/lua/*.lua go in DEB_LUA_DIR.

DEB_SRC := $(BUILD)/src
DEB_OBJ := $(BUILD)/debian

# The sources are fetched while make reads this file, as the tools are
# (the top Makefile), so that every rule below sees real source files;
# silent and quick when build/src/ has the pinned versions already.
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
DEB_FETCH_STATUS := $(shell tools/deps.sh sources >&2; echo $$?)
ifneq ($(DEB_FETCH_STATUS),0)
$(error the Debian sources are missing: run tools/deps.sh sources as root)
endif
endif

# Plain Linux programs: gcc's own startup files, glibc, no linker script.
# -ffile-prefix-map, as for the kernel, only renames the checkout's
# directory in the DWARF, so that every checkout builds the same build-ids.
DEB_CFLAGS := -static -O2 -g -fno-omit-frame-pointer
# libctest's: what a plain build of a small C program would use
DEB_PLAIN_CFLAGS := -static -O2 -g
DEB_MAP := -ffile-prefix-map=$(CURDIR)=.

DEB_PROGS := lua lua-nofp minigzip bzip2 libctest
DEB_BINS := $(DEB_PROGS:%=$(BUILD)/user/bin/%)
DEB_LUA := $(sort $(wildcard user/debian/lua/*.lua))

# The workloads' directory in the guest: under /bin, the only part of the
# initrd the kernel serves (kernel/vfs.c's mounts). The tests read it here.
DEB_LUA_DIR := /bin/share/lua

# What the top Makefile's initrd rule adds to the archive, in directory $(1)
DEB_INITRD := $(DEB_PROGS:%=$(DEB_OBJ)/bin/%) $(DEB_LUA)
define DEB_INITRD_INSTALL
$(Q)for p in $(DEB_PROGS); do cp $(DEB_OBJ)/bin/$$p $(1)/bin/$$p || exit 1; done
$(Q)mkdir -p $(1)$(DEB_LUA_DIR) && cp $(DEB_LUA) $(1)$(DEB_LUA_DIR)/
endef

# An object is rebuilt when its package is fetched anew (another version
# pinned): .pinned is written after the unpacking, the sources keep the
# tarball's dates.

# ---- lua: the core, the standard libraries and lua.c, as upstream's
# linux target builds them, less readline and dlopen (LUA_USE_POSIX, not
# LUA_USE_LINUX, which adds LUA_USE_DLOPEN)
LUA_DIR := $(DEB_SRC)/lua5.4/src
LUA_MODS := lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes \
	lparser lstate lstring ltable ltm lundump lvm lzio \
	lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib lstrlib ltablib \
	lutf8lib linit lua
LUA_DEFS := -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -I$(DEB_OBJ)/lua

# Debian's luaconf.h includes the header debian/rules writes
$(DEB_OBJ)/lua/lua5.4-deb-multiarch.h: $(DEB_SRC)/lua5.4/.pinned
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "i386-linux-gnu"\n#endif\n' > $@

$(DEB_OBJ)/lua/%.o: $(LUA_DIR)/%.c $(DEB_SRC)/lua5.4/.pinned $(DEB_OBJ)/lua/lua5.4-deb-multiarch.h
	$(call quiet,CC,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) $(LUA_DEFS) -MD -MP -c -o $@ $<

$(BUILD)/user/bin/lua: $(LUA_MODS:%=$(DEB_OBJ)/lua/%.o)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) -o $@ $^ -lm

# lua-nofp: the same sources built as plain -O2 builds them on i386, without
# frame pointers; the stack engine walks it by its unwind table alone
# (docs/stacks.md compares its flame graph with lua's)
$(DEB_OBJ)/lua-nofp/%.o: $(LUA_DIR)/%.c $(DEB_SRC)/lua5.4/.pinned $(DEB_OBJ)/lua/lua5.4-deb-multiarch.h
	@mkdir -p $(@D)
	$(CC) $(DEB_PLAIN_CFLAGS) -fomit-frame-pointer $(DEB_MAP) $(LUA_DEFS) -MD -MP -c -o $@ $<

$(BUILD)/user/bin/lua-nofp: $(LUA_MODS:%=$(DEB_OBJ)/lua-nofp/%.o)
	@mkdir -p $(@D)
	$(CC) $(DEB_PLAIN_CFLAGS) $(DEB_MAP) -o $@ $^ -lm

# ---- minigzip: zlib and its test/minigzip.c, with the definitions zlib's
# configure finds for gcc on Linux
ZLIB_DIR := $(DEB_SRC)/zlib
ZLIB_MODS := adler32 crc32 deflate infback inffast inflate inftrees trees zutil \
	compress uncompr gzclose gzlib gzread gzwrite minigzip
ZLIB_DEFS := -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN -DHAVE_UNISTD_H -DHAVE_STDARG_H -I$(ZLIB_DIR)

$(DEB_OBJ)/zlib/%.o: $(ZLIB_DIR)/%.c $(DEB_SRC)/zlib/.pinned
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) $(ZLIB_DEFS) -MD -MP -c -o $@ $<
$(DEB_OBJ)/zlib/%.o: $(ZLIB_DIR)/test/%.c $(DEB_SRC)/zlib/.pinned
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) $(ZLIB_DEFS) -MD -MP -c -o $@ $<

$(BUILD)/user/bin/minigzip: $(ZLIB_MODS:%=$(DEB_OBJ)/zlib/%.o)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) -o $@ $^

# ---- bzip2: libbz2's files and bzip2.c, large files on as bzip2's Makefile has it
BZIP2_DIR := $(DEB_SRC)/bzip2
BZIP2_MODS := blocksort huffman crctable randtable compress decompress bzlib bzip2
BZIP2_DEFS := -D_FILE_OFFSET_BITS=64

$(DEB_OBJ)/bzip2/%.o: $(BZIP2_DIR)/%.c $(DEB_SRC)/bzip2/.pinned
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) $(BZIP2_DEFS) -MD -MP -c -o $@ $<

$(BUILD)/user/bin/bzip2: $(BZIP2_MODS:%=$(DEB_OBJ)/bzip2/%.o)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(DEB_CFLAGS) $(DEB_MAP) -o $@ $^

# ---- libctest: the project's own, as a plain `gcc -static -O2 -g` builds it
$(DEB_OBJ)/libctest.o: user/debian/libctest.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(DEB_PLAIN_CFLAGS) $(DEB_MAP) -Wall -Wextra -MD -MP -c -o $@ $<

$(BUILD)/user/bin/libctest: $(DEB_OBJ)/libctest.o
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(DEB_PLAIN_CFLAGS) $(DEB_MAP) -o $@ $^ -lm

$(DEB_OBJ)/bin/%: $(BUILD)/user/bin/%
	@mkdir -p $(@D)
	$(call quiet,OBJCOPY,$@)$(OBJCOPY) --strip-debug $< $@

.SECONDARY: $(DEB_BINS)

-include $(wildcard $(DEB_OBJ)/*.d $(DEB_OBJ)/*/*.d)
