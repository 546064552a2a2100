/* The x87/SSE unit. Programs built by an ordinary compiler (glibc's
 * memcpy and strlen are SSE2, chosen by cpuid) use it, so each process has
 * its own state, saved with fxsave when it is switched out and restored
 * with fxrstor when it is switched in. The kernel itself never touches it
 * (it is built with -mgeneral-regs-only), so an interrupt or a system call
 * need not save anything, and the switch is the only place that does. */
#include "arch.h"
#include "i386.h"
#include "lib.h"
#include "x86.h"

#define CR0_MP 0x2              /* wait/fwait honour TS */
#define CR0_EM 0x4              /* no FPU: every x87 instruction traps */
#define CR0_TS 0x8              /* task switched: the next FPU use traps */
#define CR0_NE 0x20             /* x87 errors as #MF, not the PC's IRQ 13 */
#define CR4_OSFXSR 0x200        /* fxsave/fxrstor and SSE instructions */
#define CR4_OSXMMEXCPT 0x400    /* SSE errors as #XM */
#define CPUID_FXSR (1u << 24)
#define CPUID_SSE  (1u << 25)

#define FCW_DEFAULT   0x037F    /* fninit's: all exceptions masked, 64-bit precision */
#define MXCSR_DEFAULT 0x1F80    /* all SSE exceptions masked, round to nearest */

static bool have_fxsr;

static uint32_t cpuid_edx(void)
{
	uint32_t a = 1, b, c, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
	return d;
}

uint32_t arch_hwcap(void)
{
	return cpuid_edx();
}

void arch_fpu_init(void)
{
	uint32_t cr0, cr4, edx = cpuid_edx();

	__asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
	cr0 = (cr0 | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS);
	__asm__ volatile("movl %0, %%cr0" : : "r"(cr0));
	have_fxsr = (edx & CPUID_FXSR) && (edx & CPUID_SSE);
	if (have_fxsr) {
		__asm__ volatile("movl %%cr4, %0" : "=r"(cr4));
		cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT;
		__asm__ volatile("movl %0, %%cr4" : : "r"(cr4));
	} else {
		kprintf("fpu: no fxsave/SSE: x87 state is not kept per process\n");
	}
	__asm__ volatile("fninit");
}

/* the state fninit and the default MXCSR leave, as fxsave would store it */
void arch_fpu_reset(struct arch_fpu *f)
{
	memset(f, 0, sizeof *f);
	f->fx[0] = FCW_DEFAULT & 0xFF;
	f->fx[1] = FCW_DEFAULT >> 8;
	f->fx[24] = MXCSR_DEFAULT & 0xFF;      /* MXCSR at byte 24 */
	f->fx[25] = MXCSR_DEFAULT >> 8;
}

void arch_fpu_save(struct arch_fpu *f)
{
	if (have_fxsr)
		__asm__ volatile("fxsave %0" : "=m"(*f));
}

void arch_fpu_restore(const struct arch_fpu *f)
{
	if (have_fxsr)
		__asm__ volatile("fxrstor %0" : : "m"(*f));
}
