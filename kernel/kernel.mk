# Kernel: boot/*.asm, kernel/*.c, kernel/arch/i386/*.{c,asm}, kernel/prof/*.c
# linked into build/kernel.elf, with build/kernel.sym (nm -n) and
# build/kernel.asm (objdump -S) beside it for debugging and profiling.

KERNEL_C   := $(wildcard kernel/*.c kernel/arch/i386/*.c kernel/prof/*.c)
KERNEL_ASM := $(wildcard boot/*.asm kernel/arch/i386/*.asm)
KERNEL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(KERNEL_C)) \
              $(patsubst %.asm,$(BUILD)/%.asm.o,$(KERNEL_ASM))
ARCH       := i386
KCFLAGS    := $(XCFLAGS) -Ikernel -Ikernel/arch/$(ARCH) -mgeneral-regs-only

$(BUILD)/kernel/%.o: kernel/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/%.asm.o: %.asm | $(DEPS_OK)
	@mkdir -p $(@D)
	$(NASM) -f elf32 -g -F dwarf -MD $(@:.o=.d) -MP $(abspath $<) -o $@

$(BUILD)/kernel.elf: $(KERNEL_OBJ) kernel/kernel.ld
	$(LD) -m elf_i386 -nostdlib --build-id=sha1 -T kernel/kernel.ld -o $@ $(KERNEL_OBJ) $(LIBGCC)
	grub-file --is-x86-multiboot2 $@ || { echo "$@: not multiboot2"; rm -f $@; exit 1; }
	$(NM) -n $@ > $(BUILD)/kernel.sym
	$(OBJDUMP) -S $@ > $(BUILD)/kernel.asm

-include $(KERNEL_OBJ:.o=.d)
