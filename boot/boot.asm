; Multiboot2 header and entry point. The kernel is linked at KERN_LINK =
; KERNBASE + 1 MiB and loaded at 1 MiB (kernel/kernel.ld); GRUB jumps to
; _start's physical address (the ELF entry) with paging off. So until
; paging is on, _start uses no absolute address but KERNBASE below it:
; it maps the first KERN_TOP - KERNBASE bytes of physical memory both
; where they are and at KERNBASE, with 4 MiB pages, turns paging on, jumps
; to the high half and calls kmain(magic, mbi) on the kernel's boot stack.
; kmain's arch_paging_init then loads the real page directory, which has
; no low half: from there on the low addresses are user space's.
; The GDT is reloaded by the kernel proper (kernel/arch/i386/gdt.c).

; KERNBASE and KERN_TOP come from include/abi/memlayout.h (nasm -D, kernel.mk)

MB2_MAGIC     equ 0xE85250D6
MB2_ARCH_I386 equ 0
STACK_SIZE    equ 16384
BOOT_PDES     equ (KERN_TOP - KERNBASE) >> 22    ; 4 MiB pages mapped twice
PDE_4M        equ 0x83                            ; present, writable, 4 MiB

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
alignb 4096
boot_pgdir:
	resd 1024

section .text
global _start:function
_start:
	cli
	mov esi, eax            ; multiboot2 magic
	mov edi, ebx            ; multiboot2 information (physical)
	xor ecx, ecx
.map:
	mov edx, ecx
	shl edx, 22
	or edx, PDE_4M
	mov [boot_pgdir - KERNBASE + ecx * 4], edx                         ; low: identity
	mov [boot_pgdir - KERNBASE + (KERNBASE >> 22) * 4 + ecx * 4], edx  ; high: + KERNBASE
	inc ecx
	cmp ecx, BOOT_PDES
	jb .map
	mov edx, cr4
	or edx, 0x10            ; PSE: 4 MiB pages
	mov cr4, edx
	mov edx, boot_pgdir - KERNBASE
	mov cr3, edx
	mov edx, cr0
	or edx, 0x80000000      ; PG
	mov cr0, edx
	mov edx, high
	jmp edx                 ; to the high half

section .bss
align 16
global boot_stack_top
boot_stack:
	resb STACK_SIZE
boot_stack_top:

section .text
extern kmain
high:
	mov esp, boot_stack_top
	xor ebp, ebp            ; ends the frame-pointer backtrace
	push edi
	push esi
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .note.GNU-stack noalloc noexec nowrite progbits
