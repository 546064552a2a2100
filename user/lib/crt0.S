/* Program entry: the kernel leaves argc at (%esp) and argv at 4(%esp),
 * like a call frame without a return address; run main, then exit. */
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
	call	main
	movl	%eax, (%esp)
	call	exit
1:	jmp	1b			/* exit does not return */
	.size _start, . - _start
	.section .note.GNU-stack, "", @progbits	/* no executable stack */
