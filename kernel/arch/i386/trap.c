/* Trap dispatch: every exception, IRQ and system call arrives here from
 * vectors.asm, but two that have entries of their own: the clock's IRQ 0
 * (vec_clock -> clock_intr) and the debug exception (vec_debug ->
 * debug_intr below, which passes what the profiler does not take on to
 * trap()). Kernel faults print a report and stop the machine; user faults
 * end only the faulting process. */
#include "arch.h"
#include "abi/syscall.h"
#include "clock.h"
#include "i386.h"
#include "lib.h"
#include "linux.h"
#include "proc.h"
#include "prof/prof.h"
#include "symtab.h"
#include "syscall.h"
#include "x86.h"

#define T_IRQ0 32
#define T_PGFLT 14
#define DR6_BS  0x4000          /* DR6: the #DB came from single-stepping */


static const char *const trapnames[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault",
	"coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack fault", "general protection", "page fault", "reserved",
	"x87 floating point", "alignment check", "machine check",
	"SIMD floating point", "virtualization", "control protection",
};

static const char *trapname(uint32_t n)
{
	if (n < 32)
		return trapnames[n] ? trapnames[n] : "reserved";
	if (n == T_SYSCALL)
		return "system call";
	if (n >= T_IRQ0 && n < T_IRQ0 + 16)
		return "IRQ";
	return "unknown";
}

/* The trap report for a fault in the kernel: name, registers, the faulting
 * EIP and a frame-pointer backtrace; then the machine powers off with the
 * panic status so a test harness sees it. */
static void kernel_fault(struct trapframe *tf)
{
	char name[64];

	kprintf("\nkernel trap %u (%s) err 0x%x\n", tf->trapno, trapname(tf->trapno), tf->err);
	if (tf->trapno == T_PGFLT)
		kprintf("  fault address 0x%08x\n", read_cr2());
	kprintf("  eax 0x%08x ebx 0x%08x ecx 0x%08x edx 0x%08x\n", tf->eax, tf->ebx, tf->ecx, tf->edx);
	kprintf("  esi 0x%08x edi 0x%08x ebp 0x%08x esp 0x%08x\n", tf->esi, tf->edi, tf->ebp,
		(uint32_t)&tf->esp);
	kprintf("  cs 0x%04x ds 0x%04x eflags 0x%08x\n", tf->cs, tf->ds, tf->eflags);
	symtab_format(name, sizeof name, tf->eip, false);
	kprintf("  eip 0x%08x %s\n", tf->eip, name);
	backtrace(tf->ebp, 16);
	panic("trap %u (%s) in kernel", tf->trapno, trapname(tf->trapno));
}

/* A page fault in the kernel is a bug, unless the instruction is one that
 * may touch an unmapped user page on purpose (arch_user_inc16, the user
 * stack walk), and the address is not the kernel's: those instructions
 * are listed with where to go on instead, and the fault resumes there. A
 * walk never reads at or above USER_TOP, where the kernel is. */
struct fixup {
	uint32_t insn, resume;
};
extern const struct fixup _extable_start[], _extable_end[];

static bool fixup(struct trapframe *tf)
{
	uint32_t va;

	if (tf->trapno != T_PGFLT)
		return false;
	va = read_cr2();
	if (va < USER_BASE || va >= USER_TOP)
		return false;           /* not user memory: a kernel bug, reported */
	for (const struct fixup *f = _extable_start; f < _extable_end; f++)
		if (f->insn == tf->eip) {
			tf->eip = f->resume;
			return true;
		}
	return false;
}

/* a trap from user mode: its signal (signal.c), which a Linux program
 * may handle; unhandled, the process dies, with the line saying why */
static void user_fault(struct trapframe *tf)
{
	struct proc *p = curproc();
	int sig = arch_fault_signal(tf);
	uint32_t h = p->sig.act[sig].handler;

	/* a Linux program's stack grows into its reserve */
	if (tf->trapno == T_PGFLT && linux_stack_grow(p, read_cr2()))
		return;
	if (h > 1 && !(p->sig.blocked & SIGBIT(sig))) {        /* neither SIG_DFL nor SIG_IGN */
		signal_fault(sig);
		return;
	}
	if (tf->trapno == T_PGFLT)
		kprintf("pid %d (%s): page fault at 0x%08x eip 0x%08x\n",
			p->pid, p->name, read_cr2(), tf->eip);
	else
		kprintf("pid %d (%s): trap %u (%s) eip 0x%08x\n",
			p->pid, p->name, tf->trapno, trapname(tf->trapno), tf->eip);
	/* a Linux program's status is its signal's (136 for SIGFPE, as a
	 * shell shows it); the project's ABI has one status for any fault */
	proc_exit(p->abi == ABI_LINUX ? 128 + sig : WSTATUS_FAULT);
}

void trap(struct trapframe *tf)
{
	bool user = arch_frame_user(tf);

	if (tf->trapno == T_SYSCALL) {
		syscall(tf);
		if (proc_killed())
			proc_exit(WSTATUS_KILLED);
		if (need_resched)       /* the slice ran out during the call */
			yield();
		signal_userret(curproc(), tf, true);
	} else if (tf->trapno >= T_IRQ0 && tf->trapno < T_IRQ0 + 16) {
		int irq = tf->trapno - T_IRQ0;
		pic_eoi(irq);
		if (irq == 4)
			uart_intr();
		if (user && proc_killed())
			proc_exit(WSTATUS_KILLED);
		if (user)
			signal_userret(curproc(), tf, false);
	} else if (user) {
		user_fault(tf);         /* a #DB here is one no engine took */
		signal_userret(curproc(), tf, false);
	} else if (!fixup(tf)) {
		kernel_fault(tf);
	}
	if (user)
		prof_userret(curproc(), tf);
}

/* The debug exception's own entry, from vectors.asm. While a process is
 * single-stepped every one of its instructions raises a #DB, so a step in
 * user mode goes straight to the profiler and back, without trap()'s
 * dispatch. Anything else goes through trap(): a #DB in the kernel to the
 * fault report, one in user mode that no engine takes (a step nobody
 * traces, an icebp) to the process's death. */
__attribute__((optimize("omit-frame-pointer")))      /* it costs every step */
void ARCH_FASTCALL debug_intr(struct trapframe *tf)
{
	uint32_t dr6;

	if (arch_frame_user(tf)) {
		__asm__ volatile("movl %%dr6, %0" : "=r"(dr6));
		/* the processor never clears DR6: do it, or every later #DB
		 * looks like a step */
		__asm__ volatile("movl %0, %%dr6" : : "r"(0));
		if ((dr6 & DR6_BS) && prof_step(curproc(), tf))
			return;
	}
	trap(tf);
}

void arch_user_entry_frame(struct trapframe *tf, uint32_t eip, uint32_t esp)
{
	memset(tf, 0, sizeof *tf);
	tf->cs = UCODE_SEL;
	tf->ds = tf->es = tf->fs = tf->gs = tf->ss = UDATA_SEL;
	tf->eflags = FL_IF;
	tf->eip = eip;
	tf->esp = esp;
}

void arch_enable_interrupts(void)
{
	__asm__ volatile("sti");
}
