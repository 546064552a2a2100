/* A signal handler's frame, as Linux i386 lays it out (the kernel's
 * arch/x86/include/asm/sigframe.h: sigframe_ia32, rt_sigframe_ia32), so
 * that glibc's handlers find the interrupted eip where they look (profil
 * reads sigcontext's eip, a SA_SIGINFO handler its ucontext's gregs) and
 * an unwinder can step from the handler through the return trampoline to
 * the interrupted code:
 *
 *   higher  the interrupted code's stack
 *           the FPU state: struct _fpstate_32 (the fsave header, then the
 *             fxsave image at +112), 64-aligned; sigcontext.fpstate
 *           sigframe:    pretcode, sig, sigcontext, an unused _fpstate_32,
 *                        extramask, retcode[8]         (no SA_SIGINFO)
 *        or rt_sigframe: pretcode, sig, pinfo, puc, siginfo, ucontext,
 *                        retcode[8]                    (SA_SIGINFO)
 *   lower   esp at the handler's first instruction, +4 16-aligned
 *
 * pretcode is the handler's return address: sa_restorer (glibc always
 * gives one) or retcode, the same sigreturn instructions Linux writes.
 * Everything sigreturn reads back is checked: a user may forge the frame,
 * and gets no kernel selector, IOPL, TF or a cleared IF from it, and no
 * eip in the kernel; a frame that is not there or asks for one of those
 * ends the process (139, as Linux's SIGSEGV from a bad frame). */
#include <linux/signal.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>
#include <asm/unistd_32.h>

#include "abi/errno.h"
#include "arch.h"
#include "i386.h"
#include "lib.h"
#include "proc.h"
#include "signal.h"
#include "syscall.h"
#include "uaccess.h"
#include "x86.h"

/* Linux's struct ucontext as its i386 kernel writes it: the UAPI's
 * (asm-generic/ucontext.h) with the kernel's 64-signal mask, not the
 * UAPI's 32-signal sigset_t */
struct lx_ucontext {
	uint32_t uc_flags, uc_link;
	stack_t uc_stack;
	struct sigcontext uc_mcontext;
	uint32_t uc_sigmask[2];
};
_Static_assert(offsetof(struct lx_ucontext, uc_sigmask) == offsetof(struct ucontext, uc_sigmask),
	       "struct ucontext as the UAPI lays it out");

struct sigframe {
	uint32_t pretcode;
	int32_t sig;
	struct sigcontext sc;
	struct _fpstate_32 fpstate_unused;
	uint32_t extramask[1];
	uint8_t retcode[8];
};

struct rt_sigframe {
	uint32_t pretcode;
	int32_t sig;
	uint32_t pinfo, puc;
	siginfo_t info;
	struct lx_ucontext uc;
	uint8_t retcode[8];
};

/* Linux's sizes: the unwinders' and debuggers' offsets depend on them */
_Static_assert(sizeof(struct sigcontext) == 88 && sizeof(struct _fpstate_32) == 624 &&
	       sizeof(siginfo_t) == 128, "Linux i386's signal structures");
_Static_assert(sizeof(struct sigframe) == 732 && sizeof(struct rt_sigframe) == 268,
	       "Linux i386's sigframe and rt_sigframe");

#define T_PGFLT 14

/* fxsave and fxrstor fault on an operand not 16-aligned, and gcc keeps
 * no stack variable so aligned on i386 (it takes the incoming stack to
 * be aligned, and a trap's is not): the images are static. One is
 * enough: a signal's frame is built or read back only on the way to
 * user mode, which an interrupt never takes while the kernel is busy. */
static struct arch_fpu fxbuf, fxnow, fxclean;
static uint32_t mxcsr_mask;     /* the processor's, from its fxsave: once */

/* the fresh unit a handler starts with (fninit's, MXCSR's default),
 * made once: arch_fpu_reset writes 512 bytes a byte at a time */
static const struct arch_fpu *clean_fpu(void)
{
	static bool made;

	if (!made) {
		arch_fpu_reset(&fxclean);
		made = true;
	}
	return &fxclean;
}
#define FSAVE_HDR 112           /* the fxsave image's offset in _fpstate_32 */
/* the flags sigreturn takes from the frame: the arithmetic ones, DF, AC.
 * Never IF, IOPL, NT, VM, nor TF, which the profilers' single-stepping
 * owns (a stray one would be a #DB nobody takes). */
#define FL_USER 0x40CD5u        /* AC OF DF SF ZF AF PF CF */
#define FL_DF   0x400u
#define FL_RF   0x10000u

/* the sigreturn instructions, as Linux writes them into retcode */
static const uint8_t retcode[8] = {
	0x58, 0xb8, __NR_sigreturn, 0, 0, 0, 0xcd, 0x80,       /* popl %eax; movl $119,%eax; int $0x80 */
};
static const uint8_t rt_retcode[8] = {
	0xb8, __NR_rt_sigreturn, 0, 0, 0, 0xcd, 0x80, 0,       /* movl $173,%eax; int $0x80 */
};

static void sigcontext_of(const struct trapframe *tf, uint32_t fpva, uint32_t oldmask,
			  struct sigcontext *sc)
{
	memset(sc, 0, sizeof *sc);
	sc->gs = tf->gs;
	sc->fs = tf->fs;
	sc->es = tf->es;
	sc->ds = tf->ds;
	sc->edi = tf->edi;
	sc->esi = tf->esi;
	sc->ebp = tf->ebp;
	sc->esp = tf->esp;
	sc->ebx = tf->ebx;
	sc->edx = tf->edx;
	sc->ecx = tf->ecx;
	sc->eax = tf->eax;
	sc->trapno = tf->trapno;
	sc->err = tf->err;
	sc->eip = tf->eip;
	sc->cs = tf->cs;
	sc->eflags = tf->eflags & ~FL_TF;
	sc->esp_at_signal = tf->esp;
	sc->ss = tf->ss;
	sc->fpstate = (struct _fpstate_32 *)fpva;
	sc->oldmask = oldmask;
	sc->cr2 = tf->trapno == T_PGFLT ? read_cr2() : 0;
}

/* the FPU state at fpva: the fsave header (control, status, the
 * registers) for old readers, then the fxsave image, which sigreturn
 * takes back. The unit is then reset for the handler, as Linux does. */
static int fpstate_out(uint32_t fpva)
{
	struct arch_fpu *fx = &fxbuf;
	struct _fpstate_32 hdr;

	arch_fpu_save(fx);
	memset(fx->fx + 464, 0, 48);    /* fxsave leaves these; they are no state */
	memset(&hdr, 0, FSAVE_HDR);
	hdr.cw = 0xFFFF0000u | fx->fx[0] | fx->fx[1] << 8;
	hdr.sw = 0xFFFF0000u | fx->fx[2] | fx->fx[3] << 8;
	hdr.tag = 0xFFFFFFFFu;          /* all empty: the fxsave image has the truth */
	for (int i = 0; i < 8; i++)
		memcpy(&hdr._st[i], fx->fx + 32 + 16 * i, 10);
	hdr.status = (uint16_t)hdr.sw;
	hdr.magic = X86_FXSR_MAGIC;
	if (copyout(fpva, &hdr, FSAVE_HDR) < 0 || copyout(fpva + FSAVE_HDR, fx->fx, sizeof fx->fx) < 0)
		return -EFAULT;
	arch_fpu_restore(clean_fpu());
	return 0;
}

static void altstack_of(const struct proc *p, uint32_t sp, stack_t *ss)
{
	ss->ss_sp = (void *)p->sig.ss_sp;
	ss->ss_size = p->sig.ss_size;
	ss->ss_flags = !p->sig.ss_size ? SS_DISABLE :
		sp - p->sig.ss_sp < p->sig.ss_size ? SS_ONSTACK : 0;
}

int arch_signal_frame(struct trapframe *tf, int sig, const struct sigact *a,
		      uint64_t mask, uint32_t sp, bool rt)
{
	struct proc *p = curproc();
	uint32_t fpva, fva, size = rt ? sizeof(struct rt_sigframe) : sizeof(struct sigframe);
	union {
		struct sigframe f;
		struct rt_sigframe rt;
	} u;

	fpva = ROUNDDOWN(sp - sizeof(struct _fpstate_32), 64);
	fva = ((fpva - size + 4) & ~15u) - 4;   /* as after a call: esp+4 16-aligned */
	if (fva < USER_BASE || fva >= fpva || !uvalid(fva, sp - fva))
		return -EFAULT;
	if (rt) {
		memset(&u.rt, 0, sizeof u.rt);
		u.rt.sig = sig;
		u.rt.pinfo = fva + offsetof(struct rt_sigframe, info);
		u.rt.puc = fva + offsetof(struct rt_sigframe, uc);
		u.rt.info.si_signo = sig;
		u.rt.info.si_code = SI_KERNEL;
		if (tf->trapno == T_PGFLT && sig == SIGSEGV) {
			u.rt.info.si_code = SEGV_MAPERR;
			u.rt.info.si_addr = (void *)read_cr2();
		}
		altstack_of(p, tf->esp, &u.rt.uc.uc_stack);
		sigcontext_of(tf, fpva, (uint32_t)mask, &u.rt.uc.uc_mcontext);
		u.rt.uc.uc_sigmask[0] = (uint32_t)mask;
		u.rt.uc.uc_sigmask[1] = (uint32_t)(mask >> 32);
		memcpy(u.rt.retcode, rt_retcode, sizeof rt_retcode);
		u.rt.pretcode = (a->flags & SA_RESTORER) ? a->restorer :
			fva + offsetof(struct rt_sigframe, retcode);
		if (copyout(fva, &u.rt, size) < 0)
			return -EFAULT;
	} else {
		u.f.sig = sig;
		sigcontext_of(tf, fpva, (uint32_t)mask, &u.f.sc);
		u.f.extramask[0] = (uint32_t)(mask >> 32);
		memcpy(u.f.retcode, retcode, sizeof retcode);
		u.f.pretcode = (a->flags & SA_RESTORER) ? a->restorer :
			fva + offsetof(struct sigframe, retcode);
		/* the unused _fpstate is left as it was, as Linux leaves it:
		 * 624 bytes a signal less to copy */
		if (copyout(fva, &u.f, offsetof(struct sigframe, fpstate_unused)) < 0 ||
		    copyout(fva + offsetof(struct sigframe, extramask), &u.f.extramask,
			    size - offsetof(struct sigframe, extramask)) < 0)
			return -EFAULT;
	}
	if (fpstate_out(fpva) < 0)
		return -EFAULT;
	tf->esp = fva;
	tf->eip = a->handler;
	tf->eax = (uint32_t)sig;
	tf->edx = rt ? u.rt.pinfo : 0;
	tf->ecx = rt ? u.rt.puc : 0;
	tf->cs = UCODE_SEL;
	tf->ds = tf->es = tf->ss = UDATA_SEL;
	tf->eflags = (tf->eflags & ~(FL_TF | FL_DF | FL_RF)) | FL_IF;
	return 0;
}

/* fs and gs: what the process has now (its TLS selector), null, or the
 * user data segment; anything else might fault in the kernel's iret */
static bool user_fsgs(uint32_t now, uint32_t sel)
{
	return sel == now || sel == 0 || sel == UDATA_SEL;
}

/* The FPU state back from the frame. fxrstor faults on a reserved MXCSR
 * bit, in the kernel: those are cleared (the mask is the processor's own,
 * from its fxsave). No state (fpstate 0) is a fresh unit, as Linux's. */
static bool fpstate_in(uint32_t fpva)
{
	struct arch_fpu *fx = &fxbuf;
	uint32_t mxcsr, mask;

	if (!fpva) {
		arch_fpu_restore(clean_fpu());
		return true;
	}
	if (fpva >= USER_TOP || copyin(fx->fx, fpva + FSAVE_HDR, sizeof fx->fx) < 0)
		return false;
	if (!mxcsr_mask) {
		arch_fpu_save(&fxnow);
		memcpy(&mxcsr_mask, fxnow.fx + 28, 4);
		if (!mxcsr_mask)
			mxcsr_mask = 0xFFBF;    /* the processors that give none */
	}
	mask = mxcsr_mask;
	memcpy(&mxcsr, fx->fx + 24, 4);
	mxcsr &= mask;
	memcpy(fx->fx + 24, &mxcsr, 4);
	arch_fpu_restore(fx);
	return true;
}

bool arch_signal_return(struct trapframe *tf, uint64_t *mask, bool rt)
{
	struct sigcontext sc;
	uint32_t hi;

	/* ret popped pretcode; sigframe's retcode popped sig as well */
	if (rt) {
		uint32_t uc = tf->esp - 4 + offsetof(struct rt_sigframe, uc);
		if (copyin(&sc, uc + offsetof(struct lx_ucontext, uc_mcontext), sizeof sc) < 0 ||
		    copyin(&hi, uc + offsetof(struct lx_ucontext, uc_sigmask) + 4, 4) < 0 ||
		    copyin(&sc.oldmask, uc + offsetof(struct lx_ucontext, uc_sigmask), 4) < 0)
			return false;
	} else {
		uint32_t f = tf->esp - 8;
		if (copyin(&sc, f + offsetof(struct sigframe, sc), sizeof sc) < 0 ||
		    copyin(&hi, f + offsetof(struct sigframe, extramask), 4) < 0)
			return false;
	}
	if (sc.cs != UCODE_SEL || sc.ss != UDATA_SEL || sc.ds != UDATA_SEL || sc.es != UDATA_SEL ||
	    !user_fsgs(tf->fs, sc.fs) || !user_fsgs(tf->gs, sc.gs) || sc.eip >= USER_TOP)
		return false;
	if (!fpstate_in((uint32_t)sc.fpstate))
		return false;
	tf->gs = sc.gs;
	tf->fs = sc.fs;
	tf->edi = sc.edi;
	tf->esi = sc.esi;
	tf->ebp = sc.ebp;
	tf->esp = sc.esp;
	tf->ebx = sc.ebx;
	tf->edx = sc.edx;
	tf->ecx = sc.ecx;
	tf->eax = sc.eax;
	tf->eip = sc.eip;
	tf->eflags = (tf->eflags & ~FL_USER & ~(FL_TF | FL_RF)) | (sc.eflags & FL_USER) | FL_IF;
	*mask = (uint64_t)hi << 32 | sc.oldmask;
	return true;
}

/* Linux's choice of signal for each exception */
int arch_fault_signal(const struct trapframe *tf)
{
	switch (tf->trapno) {
	case 0:                 /* divide error */
	case 16:                /* x87 */
	case 19:                /* SIMD */
		return SIGFPE;
	case 1:                 /* debug */
	case 3:                 /* breakpoint (int3) */
		return SIGTRAP;
	case 6:                 /* invalid opcode */
		return SIGILL;
	case 17:                /* alignment check */
		return SIGBUS;
	default:
		return SIGSEGV;
	}
}

/* the call again: its number back in eax, eip back on the int $0x80 */
void arch_syscall_restart(struct trapframe *tf, uint32_t num)
{
	tf->eax = num;
	tf->eip -= 2;
}

/* the word at user address a, through the fault fixup */
static bool uword(uint32_t a, uint32_t *v)
{
	return a - USER_BASE <= USER_TOP - 4 - USER_BASE && arch_user_load32((const uint32_t *)a, v);
}

bool arch_signal_unwind(uint32_t pc, uint32_t sp, uint32_t *npc, uint32_t *nsp, uint32_t *nfp)
{
	uint32_t w0, w1, sc;

	if (!uword(pc, &w0) || !uword(pc + 4, &w1))
		return false;
	/* the handler's ret popped pretcode: sp is the frame's + 4 */
	if ((w0 & 0x00FFFFFF) == (0xb8u | __NR_rt_sigreturn << 8) && (w1 & 0x00FFFF00) == 0x0080cd00 &&
	    w0 >> 24 == 0) {
		/* movl $173, %eax; int $0x80: rt_sigframe's ucontext, by puc */
		uint32_t puc;

		if (!uword(sp + offsetof(struct rt_sigframe, puc) - 4, &puc))
			return false;
		sc = puc + offsetof(struct lx_ucontext, uc_mcontext);
	} else if (w0 == (0x58u | 0xb8u << 8 | (uint32_t)__NR_sigreturn << 16) && w1 == 0x80cd0000) {
		/* popl %eax; movl $119, %eax; int $0x80: sigframe's sigcontext */
		sc = sp - 4 + offsetof(struct sigframe, sc);
	} else {
		return false;
	}
	return uword(sc + offsetof(struct sigcontext, eip), npc) &&
	       uword(sc + offsetof(struct sigcontext, esp), nsp) &&
	       uword(sc + offsetof(struct sigcontext, ebp), nfp);
}
