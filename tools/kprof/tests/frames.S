/* frames.S: leaves with and without a frame, for the repair of stacks
 * (stacks.c; test_bugs.c's frameless_leaf_repair): top and caller set
 * their frames up; caller calls each leaf. The test takes the offsets
 * below from here (each call is 5 bytes). */
	.text
	.globl _start
	.type _start, @function
_start:	xorl	%ebp, %ebp
	call	top			/* _start+7 */
	hlt
	.size _start, . - _start

	.globl top
	.type top, @function
top:	pushl	%ebp
	movl	%esp, %ebp
	call	caller			/* top+8 */
	popl	%ebp
	ret
	.size top, . - top

	.globl caller
	.type caller, @function
caller:	pushl	%ebp
	movl	%esp, %ebp
	call	leaf0			/* caller+8 */
	call	leafj			/* caller+13 */
	call	leafand			/* caller+18 */
	call	leaff			/* caller+23 */
	popl	%ebp
	ret
	.size caller, . - caller

/* no frame, nothing pushed: the caller is the word at esp */
	.globl leaf0
	.type leaf0, @function
leaf0:	movl	4(%esp), %ecx
1:	decl	%ecx			/* leaf0+4 */
	jnz	1b
	ret
	.size leaf0, . - leaf0

/* no frame, one push; the loop is after a ret, reached by a jump from
 * where one word was pushed */
	.globl leafj
	.type leafj, @function
leafj:	pushl	%ebx
	testl	%ecx, %ecx
	jz	1f
	popl	%ebx
	ret
1:	decl	%ecx			/* leafj+7 */
	jnz	1b
	popl	%ebx
	ret
	.size leafj, . - leafj

/* no frame, and the stack aligned: no depth to follow */
	.globl leafand
	.type leafand, @function
leafand:
	movl	%esp, %eax
	andl	$-16, %esp
	pushl	%eax
1:	decl	%ecx			/* leafand+6 */
	jnz	1b
	popl	%esp
	ret
	.size leafand, . - leafand

/* a frame */
	.globl leaff
	.type leaff, @function
leaff:	pushl	%ebp
	movl	%esp, %ebp
1:	decl	%ecx			/* leaff+3 */
	jnz	1b
	popl	%ebp
	ret
	.size leaff, . - leaff
	.section .note.GNU-stack, "", @progbits
