/* Inline x86 instructions: port I/O and control registers. Only code under
 * kernel/arch/i386/ includes this. */
#ifndef X86_H
#define X86_H

#include <stdint.h>
#include "trapframe.h"     /* FL_IF, FL_TF */

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t read_eflags(void)
{
	uint32_t v;
	__asm__ volatile("pushfl; popl %0" : "=r"(v));
	return v;
}

static inline uint32_t read_cr2(void)
{
	uint32_t v;
	__asm__ volatile("movl %%cr2, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint32_t v)
{
	__asm__ volatile("movl %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint32_t read_cr3(void)
{
	uint32_t v;
	__asm__ volatile("movl %%cr3, %0" : "=r"(v));
	return v;
}

/* segment selectors (gdt.c) */
#define SEG_KCODE 1
#define SEG_KDATA 2
#define SEG_UCODE 3
#define SEG_UDATA 4
#define SEG_TSS   5
#define KCODE_SEL (SEG_KCODE << 3)
#define KDATA_SEL (SEG_KDATA << 3)
#define UCODE_SEL ((SEG_UCODE << 3) | 3)
#define UDATA_SEL ((SEG_UDATA << 3) | 3)
#define TSS_SEL   (SEG_TSS << 3)

#endif
