/* The processor interface. Portable kernel code reaches everything
 * processor-specific through these arch_* functions; the i386 versions live
 * in kernel/arch/i386/. */
#ifndef ARCH_H
#define ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/i386/trapframe.h"

/* boot-time setup: GDT, TSS, IDT, PIC */
void arch_init(void);

/* interrupts. splhi() turns them off and returns the old state; splx()
 * restores it. splhi() remembers its caller's PC (splpc) so that a clock
 * sample that was held back by the cli is charged to the code that turned
 * interrupts off, not to the instruction after the sti. */
uint32_t splhi(void);
void splx(uint32_t s);
extern volatile uint32_t splpc;
void arch_enable_interrupts(void);
bool arch_interrupts_enabled(void);
void arch_idle(void);                  /* sti; hlt: wait for an interrupt */

uint64_t arch_read_tsc(void);
uint32_t arch_tsc_khz(void);           /* calibrated against the PIT at boot */
void arch_poweroff(int code) __attribute__((noreturn));

/* 8254 PIT channel 0. Returns the achieved rate in millihertz. */
uint32_t arch_pit_set_hz(uint32_t hz);
uint32_t arch_pit_divisor(uint32_t hz);
/* Starts channel 0's count again: the next tick is one period from now. */
void arch_pit_restart(void);

/* 16550 UARTs: port 0 is COM1 (the console), port 1 is COM2 (raw export) */
void arch_uart_init(void);
void arch_uart_enable_rx(void);     /* after arch_init() */
void arch_uart_putc(int port, char c);

/* QEMU fw_cfg: copies the named file into buf (NUL-terminated); returns
 * its length, or -1 if there is no fw_cfg or no such file. */
int arch_fwcfg_read(const char *name, char *buf, int size);

/* *c += 1 unless it is already 0xFFFFFFFF; then *lost += 1 instead.
 * Three instructions: the add's carry is taken back by sbb, and the same
 * borrow is what adc adds to *lost. */
static inline void arch_inc_sat(uint32_t *c, uint32_t *lost)
{
	__asm__("addl $1, %0\n\tsbbl $0, %0\n\tadcl $0, %1" : "+m"(*c), "+m"(*lost) : : "cc");
}

/* where a clock tick held back by splhi() lands, right after splx's sti */
extern char splx_landing[];

/* the frame of the interrupted context */
static inline uint32_t arch_frame_pc(const struct trapframe *tf) { return tf->eip; }
static inline bool arch_frame_user(const struct trapframe *tf) { return tf->cs & 3; }

/* paging (kernel/arch/i386/mmu.c) */
void arch_paging_init(uint32_t ram_top);
uint32_t *arch_pgdir_new(void);        /* kernel part shared, user part empty */
void arch_pgdir_free(uint32_t *pgdir); /* frees user pages and page tables */
void arch_pgdir_switch(uint32_t *pgdir);
/* maps one user page at va to physical page pa (writable); false on no memory */
bool arch_map_user(uint32_t *pgdir, uint32_t va, uint32_t pa);
void arch_unmap_user(uint32_t *pgdir, uint32_t va);   /* frees the page */
/* physical address of the user page at va, or 0 if not mapped user */
uint32_t arch_user_page(uint32_t *pgdir, uint32_t va);
uint32_t arch_fault_addr(void);        /* cr2 */

/* the kernel stack used on a trap from user mode */
void arch_set_kernel_stack(uint32_t top);
/* builds the first frame of a new process on its kernel stack */
struct context;
void arch_user_entry_frame(struct trapframe *tf, uint32_t eip, uint32_t esp);

#endif
