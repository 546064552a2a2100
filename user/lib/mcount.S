/* mcount: gcc -pg calls it at every function entry, after the prologue, so
 * 4(%ebp) is the function's return address (the caller: frompc) and our
 * own return address is inside the function (selfpc). The caller-saved
 * registers are kept: a local function may take arguments in them. */
	.text
	.p2align 4
	.globl mcount
	.type mcount, @function
mcount:
	pushl	%eax
	pushl	%ecx
	pushl	%edx
	movl	4(%ebp), %eax		/* frompc */
	movl	12(%esp), %edx		/* selfpc */
	call	_mcount_arc		/* regparm: %eax, %edx */
	popl	%edx
	popl	%ecx
	popl	%eax
	ret
	.size mcount, . - mcount
	.section .note.GNU-stack, "", @progbits	/* no executable stack */
