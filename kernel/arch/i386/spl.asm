; Interrupt masking with the splpc record (the 9front idea). splhi() notes
; the PC of its caller when it turns interrupts off; a clock tick that
; arrived meanwhile is delivered right after the sti in splx(), at
; splx_landing, and the profiler charges it to splpc instead.
;
; While an engine times interrupts-off sections (prof_kcall_hook, set by
; kernel/prof/prof.c), splhi() and splx() call it with PROF_KC_OFF (0) and
; PROF_KC_ON (1) and the section's site; otherwise the test costs a load
; and a branch where interrupts change state.

global splhi
global splx
global splx_landing
global splpc
global arch_idle
global idle_hlt
extern prof_kcall_hook

section .text
splhi:
	pushf
	pop eax
	cli
	test eax, 0x200
	jz .already_off
	mov edx, [esp]          ; our caller's PC
	mov [splpc], edx
	mov ecx, [prof_kcall_hook]
	test ecx, ecx
	jnz .timed
.already_off:
	ret
.timed:
	push eax                ; the flags we return
	push edx
	push dword 0            ; PROF_KC_OFF
	call ecx
	add esp, 8
	pop eax
	ret

splx:
	test dword [esp + 4], 0x200
	jz splx_landing         ; staying off: nothing can land there
	mov ecx, [prof_kcall_hook]
	test ecx, ecx
	jz .on
	push dword [splpc]
	push dword 1            ; PROF_KC_ON
	call ecx
	add esp, 8
.on:
	sti
	nop                     ; sti holds interrupts off for one instruction
splx_landing:
	ret

; The idle loop's halt: interrupts on, wait. The profiler and ps can tell
; idle time by a PC at idle_hlt's instructions.
arch_idle:
	sti
idle_hlt:
	hlt
	ret

section .bss
splpc:
	resd 1

section .note.GNU-stack noalloc noexec nowrite progbits
