/* gcrt0: linked into programs built for profiling, beside crt0. It carries
 * the ELF note without which the kernel refuses profil() (EPERM), and the
 * _crt_init hook crt0 calls before main, which starts profiling (gmon.c). */
#include "abi/gmon.h"

	.section .note.profil, "a", @note
	.p2align 2
	.long	2f - 1f			/* name size, with its NUL */
	.long	0			/* no descriptor */
	.long	GMON_NOTE_TYPE
1:	.asciz	GMON_NOTE_OWNER
2:	.p2align 2

	.text
	.p2align 4
	.globl _crt_init
	.type _crt_init, @function
_crt_init:
	jmp	monstartup
	.size _crt_init, . - _crt_init
	.section .note.GNU-stack, "", @progbits	/* no executable stack */
