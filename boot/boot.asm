; Multiboot2 header and entry point. GRUB jumps here in 32-bit protected
; mode with paging off; we set up our own stack and call kmain(magic, mbi).
; The GDT is reloaded by the kernel proper (kernel/arch/i386/gdt.c).

MB2_MAGIC     equ 0xE85250D6
MB2_ARCH_I386 equ 0
STACK_SIZE    equ 16384

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; end tag
	align 8
	dw 0, 0
	dd 8
mb2_header_end:

section .bss
align 16
global boot_stack_top
boot_stack:
	resb STACK_SIZE
boot_stack_top:

section .text
global _start:function
extern kmain
_start:
	cli
	mov esp, boot_stack_top
	xor ebp, ebp            ; ends the frame-pointer backtrace
	push ebx                ; multiboot2 information address
	push eax                ; multiboot2 magic
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .note.GNU-stack noalloc noexec nowrite progbits
