; Interrupt masking with the splpc record (the 9front idea). splhi() notes
; the PC of its caller when it turns interrupts off; a clock tick that
; arrived meanwhile is delivered right after the sti in splx(), at
; splx_landing, and the profiler charges it to splpc instead.

global splhi
global splx
global splx_landing
global splpc
global arch_idle
global idle_hlt

section .text
splhi:
	pushf
	pop eax
	cli
	test eax, 0x200
	jz .already_off
	mov edx, [esp]          ; our caller's PC
	mov [splpc], edx
.already_off:
	ret

splx:
	test dword [esp + 4], 0x200
	jz splx_landing         ; staying off: nothing can land there
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
