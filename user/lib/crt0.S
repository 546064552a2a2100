/* Program entry: the kernel leaves argc at (%esp) and argv at 4(%esp),
 * like a call frame without a return address; run main, then exit.
 * _crt_init, if linked in (gcrt0 for profiled programs), runs first. */
	.section .text.start, "ax"
	.globl _start
	.type _start, @function
_start:
	xorl	%ebp, %ebp		/* the end of the frame chain, for backtraces */
	movl	(%esp), %eax		/* argc */
	movl	4(%esp), %edx		/* argv */
	andl	$-16, %esp		/* the ABI's 16-byte stack alignment */
	subl	$8, %esp
	pushl	%edx
	pushl	%eax
	movl	$_crt_init, %ecx	/* weak: 0 unless gcrt0 is linked */
	testl	%ecx, %ecx
	jz	1f
	call	*%ecx
1:	call	main
	movl	%eax, (%esp)
	call	exit
2:	jmp	2b			/* exit does not return */
	.size _start, . - _start
	.weak _crt_init
	.section .note.GNU-stack, "", @progbits	/* no executable stack */
