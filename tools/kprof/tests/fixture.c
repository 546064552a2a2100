/* A tiny freestanding i386 "kernel" for the kprof unit tests: functions of
 * known names and lines, a static one, gaps that no symbol covers, and an
 * assembler label with no type or size (as nasm emits). */

int sink;

static int helper(int x) { /* L:helper */
	return x * 3 + 1;
}

int spin_a(int n) { /* L:spin_a */
	int i, s = 0;
	for (i = 0; i < n; i++)
		s += helper(i);
	return s;
}

int spin_b(int n) { /* L:spin_b */
	int i, s = 1;
	for (i = 0; i < n; i++)
		s ^= i << 2;
	return s;
}

int spin_c(int n) { /* L:spin_c */
	while (n-- > 0)
		sink++;
	return sink;
}

/* Aligned, so the bytes between spin_c's end and here belong to no symbol. */
__attribute__((aligned(64))) int far_fn(int n) { /* L:far_fn */
	return n + sink;
}

/* A sized assembler function, then a 6-byte hole no symbol covers that
 * does not end on a bin boundary, then a label with no type or size. */
__asm__(".text\n"
	".globl asm_sized\n"
	".type asm_sized, @function\n"
	"asm_sized:\n"
	"\tnop\n\tnop\n\tret\n"
	".size asm_sized, . - asm_sized\n"
	".skip 6, 0xcc\n"
	".globl asm_stub\n"
	"asm_stub:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tret\n");

void _start(void) { /* L:_start */
	sink = spin_a(10) + spin_b(20) + spin_c(30) + far_fn(4);
	for (;;)
		;
}
