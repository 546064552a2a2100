/* The registers portable code reaches through arch: a system call's number,
 * arguments and result in the trap frame (include/abi/syscall.h gives the
 * convention), and the first context of a new process. */
#include "arch.h"
#include "lib.h"
#include "i386.h"
#include "syscall.h"

uint32_t arch_syscall_num(const struct trapframe *tf)
{
	return tf->eax;
}

void arch_syscall_args(const struct trapframe *tf, uint32_t args[SYSCALL_NARGS])
{
	args[0] = tf->ebx;
	args[1] = tf->ecx;
	args[2] = tf->edx;
	args[3] = tf->esi;
	args[4] = tf->edi;
	args[5] = tf->ebp;      /* only profil has a sixth */
}

void arch_syscall_return(struct trapframe *tf, int result)
{
	tf->eax = (uint32_t)result;
}

/* swtch pops the callee-saved registers and "returns" to trapret, which
 * irets into user mode with the frame spawn filled in */
void arch_context_init(struct context *ctx)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->eip = (uint32_t)trapret;
}
