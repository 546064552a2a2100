/* Frame-pointer stack walks, for backtraces and the profilers' call
 * stacks. Every frame is checked before it is read: a walk over garbage
 * ends early, it never faults. On i386 with frame pointers, a frame is
 *   fp[0] = the caller's fp,  fp[1] = the return address
 * and each caller's frame lies above its callee's, so a chain that does not
 * climb strictly is corrupt or cyclic. */
#include "arch.h"
#include "abi/memlayout.h"
#include "lib.h"

extern char _text_start[], _text_end[];

int arch_stack_walk_kernel_end(uint32_t fp, uint32_t *pcs, int max, bool *whole)
{
	int n = 0;

	*whole = false;
	while (n < max) {
		uint32_t *frame = (uint32_t *)fp, ret;
		/* the end: the first kernel frame has a null fp, or the user's
		 * fp, from where the kernel was entered */
		if (fp < KERNBASE) {
			*whole = true;
			break;
		}
		/* the kernel's memory ends at KERN_TOP */
		if (fp % 4 || fp > KERN_TOP - 8)
			break;
		ret = frame[1];
		if (ret < (uint32_t)_text_start || ret >= (uint32_t)_text_end)
			break;
		pcs[n++] = ret;
		if (frame[0] < KERNBASE) {
			*whole = true;
			break;
		}
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

int arch_stack_walk_kernel(uint32_t fp, uint32_t *pcs, int max)
{
	bool whole;

	return arch_stack_walk_kernel_end(fp, pcs, max, &whole);
}

int arch_stack_walk_user_end(uint32_t *pgdir, uint32_t fp, uint32_t *pcs, int max, bool *whole)
{
	int n = 0;
	uint32_t next, ret;

	/* a null fp at the leaf is no chain at all (only crt0's _start has
	 * one): the stack is cut. Each word is one load with a fixup when
	 * pgdir is the one loaded (arch_user_word); the stack engine's tick
	 * has its own loop for that case (arch_user_chain). */
	*whole = false;
	/* Return addresses are not checked, as perf does not check them: a
	 * frame is recorded as the chain has it. */
	while (n < max) {
		if (fp < USER_BASE || fp % 4 || fp > USER_TOP - 8)
			break;
		if (!arch_user_word(pgdir, fp, &next) || !arch_user_word(pgdir, fp + 4, &ret))
			break;
		pcs[n++] = ret;
		if (next == 0) {        /* crt0's outermost frame */
			*whole = true;
			break;
		}
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

int arch_stack_walk_user(uint32_t *pgdir, uint32_t fp, uint32_t *pcs, int max)
{
	bool whole;

	return arch_stack_walk_user_end(pgdir, fp, pcs, max, &whole);
}
