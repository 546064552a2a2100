# Kernel: boot/*.asm, kernel/*.c, kernel/arch/i386/*.{c,asm}, kernel/prof/*.c
# linked into build/kernel.elf, with build/kernel.sym (nm -n) and
# build/kernel.asm (objdump -S) beside it for debugging and profiling.

KERNEL_C   := $(wildcard kernel/*.c kernel/arch/i386/*.c kernel/prof/*.c)
KERNEL_ASM := $(wildcard boot/*.asm kernel/arch/i386/*.asm)
KERNEL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(KERNEL_C)) \
              $(patsubst %.asm,$(BUILD)/%.asm.o,$(KERNEL_ASM))
# the Linux system calls' names, made from the compiler's asm/unistd_32.h
KERNEL_OBJ += $(BUILD)/linux_names.o
ARCH       := i386
KCFLAGS    := $(XCFLAGS) -Ikernel -Ikernel/arch/$(ARCH) -mgeneral-regs-only

$(BUILD)/kernel/%.o: kernel/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/%.asm.o: %.asm include/abi/memlayout.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call quiet,AS,$@)$(NASM) -f elf32 -DKERNBASE=$(KERNBASE_ADDR) -DKERN_TOP=$(KERN_TOP_ADDR) \
		-MD $(@:.o=.d) -MP $< -o $@

# Two links: the first with an empty symbol table, from which
# kernel/mkksyms.sh makes the real one for the second. The table is in
# .rodata, after .text, so embedding it moves no function: the second link
# checks that every function symbol is where the first had it.
KERNBASE_ADDR := $(call memlayout,KERNBASE)
KERN_LINK_ADDR := $(call memlayout,KERN_LINK)
KERN_TOP_ADDR  := $(call memlayout,KERN_TOP)
KLINK = $(LD) -m elf_i386 -nostdlib --build-id=sha1 -T kernel/kernel.ld \
	--defsym=KERNBASE=$(KERNBASE_ADDR) --defsym=KERN_LINK=$(KERN_LINK_ADDR)
KTEXTSYMS = $(NM) -S --defined-only $(1) | awk '$$3 ~ /^[tT]$$/ || $$2 ~ /^[tT]$$/'

$(BUILD)/ksyms0.c: kernel/mkksyms.sh
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)sh kernel/mkksyms.sh $(NM) > $@
$(BUILD)/ksyms.c: $(BUILD)/kernel.pass1.elf kernel/mkksyms.sh
	$(call quiet,GEN,$@)sh kernel/mkksyms.sh $(NM) $< > $@
$(BUILD)/linux_names.c: kernel/mklinuxnames.sh
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)sh kernel/mklinuxnames.sh $(CC) > $@.tmp && mv $@.tmp $@
$(BUILD)/ksyms0.o $(BUILD)/ksyms.o $(BUILD)/linux_names.o: $(BUILD)/%.o: $(BUILD)/%.c
	$(call quiet,CC,$@)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/kernel.pass1.elf: $(KERNEL_OBJ) $(BUILD)/ksyms0.o kernel/kernel.ld include/abi/memlayout.h
	$(call quiet,LD,$@)$(KLINK) -o $@ $(KERNEL_OBJ) $(BUILD)/ksyms0.o $(LIBGCC)

$(BUILD)/kernel.elf: $(KERNEL_OBJ) $(BUILD)/ksyms.o kernel/kernel.ld include/abi/memlayout.h
	$(call quiet,LD,$@)$(KLINK) -o $@ $(KERNEL_OBJ) $(BUILD)/ksyms.o $(LIBGCC)
	@$(call KTEXTSYMS,$(BUILD)/kernel.pass1.elf) > $(BUILD)/kernel.pass1.syms
	@$(call KTEXTSYMS,$@) > $(BUILD)/kernel.pass2.syms
	@cmp -s $(BUILD)/kernel.pass1.syms $(BUILD)/kernel.pass2.syms || { \
		echo "$@: the symbol table moved functions between the links"; rm -f $@; exit 1; }
	$(Q)grub-file --is-x86-multiboot2 $@ || { echo "$@: not multiboot2"; rm -f $@; exit 1; }
	$(Q)$(NM) -n $@ > $(BUILD)/kernel.sym
	$(Q)$(OBJDUMP) -S $@ > $(BUILD)/kernel.asm

-include $(KERNEL_OBJ:.o=.d)
