#include "abi/gmon.h"

/* mcount: gcc -pg calls it at every function entry, after the prologue, so
 * 4(%ebp) is the function's return address (the caller: frompc) and our
 * own return address is inside the function (selfpc). The caller-saved
 * registers are kept: a function may take arguments in them. The usual
 * case, the arc found in its first slot, is done here; the rest (a probe
 * past a collision, a new arc) in gmon.c's _mcount_arc. */
	.text
	.p2align 4
	.globl mcount
	.type mcount, @function
mcount:
	pushl	%eax
	pushl	%ecx
	pushl	%edx
	cmpl	$0, _gmon_arcs_on	/* NULL while arcs are not recorded */
	je	9f
	movl	4(%ebp), %eax		/* frompc */
	movl	12(%esp), %edx		/* selfpc */
	movl	%eax, %ecx		/* the slot: (frompc ^ selfpc) & mask, as in gmon.c */
	xorl	%edx, %ecx
	andl	_gmon_mask, %ecx
	imull	$GMON_ARC_SIZE, %ecx, %ecx
	addl	_gmon_arcs_on, %ecx
	cmpl	%eax, (%ecx)
	jne	1f
	cmpl	%edx, 4(%ecx)
	jne	1f
	addl	$1, 8(%ecx)		/* count + 1, saturating: */
	sbbl	$0, 8(%ecx)		/* a carry out takes it back */
9:	popl	%edx
	popl	%ecx
	popl	%eax
	ret
1:	call	_mcount_arc		/* regparm: %eax, %edx */
	jmp	9b
	.size mcount, . - mcount
	.section .note.GNU-stack, "", @progbits	/* no executable stack */
