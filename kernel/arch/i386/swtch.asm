; swtch(struct context **old, struct context *new): saves the callee-saved
; registers on the current stack, stores that stack pointer in *old, and
; resumes the context new. The return address is the saved eip.
global swtch
section .text
swtch:
	mov eax, [esp + 4]
	mov edx, [esp + 8]
	push ebp
	push ebx
	push esi
	push edi
	mov [eax], esp
	mov esp, edx
	pop edi
	pop esi
	pop ebx
	pop ebp
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
