; Interrupt entry stubs. Each vector pushes an error code (0 where the CPU
; pushes none) and its number, then alltraps saves the rest of a struct
; trapframe (trapframe.h) and calls trap(tf).

extern trap
extern clock_intr
extern clock_sample
extern debug_intr
global vectors
global vector_syscall
global trapret

KDATA_SEL equ 0x10

%macro VEC_NOERR 1
vec%1:
	push dword 0
	push dword %1
	jmp alltraps
%endmacro

%macro VEC_ERR 1
vec%1:
	push dword %1
	jmp alltraps
%endmacro

section .text
VEC_NOERR 0
VEC_NOERR 2
VEC_NOERR 3
VEC_NOERR 4
VEC_NOERR 5
VEC_NOERR 6
VEC_NOERR 7
VEC_ERR   8
VEC_NOERR 9
VEC_ERR   10
VEC_ERR   11
VEC_ERR   12
VEC_ERR   13
VEC_ERR   14
VEC_NOERR 15
VEC_NOERR 16
VEC_ERR   17
VEC_NOERR 18
VEC_NOERR 19
VEC_NOERR 20
VEC_ERR   21
; 22..47, but 32: the clock has its own stub, vec_clock
%assign i 22
%rep 26
%if i != 32
VEC_NOERR i
%endif
%assign i i+1
%endrep

; the rest of a struct trapframe, and the kernel's segments
%macro SAVE 0
	push ds
	push es
	push fs
	push gs
	pusha
	cld                     ; user code may have set the direction flag;
	                        ; the kernel's string copies count upward
	mov ax, KDATA_SEL
	mov ds, ax
	mov es, ax
	mov fs, ax
	mov gs, ax
%endmacro

; The clock's interrupt (IRQ 0, vector 32), the most frequent trap, goes
; straight to clock_intr (kernel/clock.c) instead of through trap()'s
; dispatch. The frame goes into the clock's sample (clock_sample.tf,
; kernel/clock.h), where the profiler's engines find it without any cost
; to the tick; clock_intr reads it there once, first thing, and keeps its
; own copy, which is still this tick's frame when the tick returns after a
; switch to other processes.
CLOCK_SAMPLE_TF equ 12
vec_clock:
	push dword 0
	push dword 32
	SAVE
	mov [clock_sample + CLOCK_SAMPLE_TF], esp
	call clock_intr
	jmp trapret

; The debug exception (vector 1) has its own entry too: a process traced
; by single-stepping raises one on every instruction. debug_intr
; (trap.c) hands a user-mode step to the profiler and passes anything else
; to trap(). It takes the frame in eax (regparm).
vec_debug:
	push dword 0
	push dword 1
	SAVE
	mov eax, esp
	call debug_intr
	jmp trapret

; The system call's gate is a trap gate: interrupts stay on, and a tick
; may land anywhere from vector_syscall to the end of alltraps' SAVE, and
; in trapret after popa. There the user's registers are in the registers,
; not in the frame (machdep.h, arch_user_regs_live): the stack engine
; takes the user's ebp from there. trap_live is the two ranges, start and
; end; their ends are equates, not labels, so that no symbol names the
; code after them. The other vectors are interrupt gates, and jump into
; alltraps with interrupts off.
vector_syscall:
	push dword 0
	push dword 0x80
alltraps:
	SAVE
ENTRY_LIVE_END equ $ - vector_syscall
	push esp                ; struct trapframe *
	call trap
	add esp, 4
trapret:
	popa
EXIT_LIVE equ $ - trapret
	pop gs
	pop fs
	pop es
	pop ds
	add esp, 8              ; trapno and error code
	iret
EXIT_LIVE_END equ $ - trapret

section .rodata
global trap_live
trap_live:
	dd vector_syscall, vector_syscall + ENTRY_LIVE_END
	dd trapret + EXIT_LIVE, trapret + EXIT_LIVE_END
vectors:
%assign i 0
%rep 48
%if i == 32
	dd vec_clock
%elif i == 1
	dd vec_debug
%else
	dd vec %+ i
%endif
%assign i i+1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
