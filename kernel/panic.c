/* panic() and the frame-pointer backtrace. A panic powers the machine off
 * with the panic status so that a test harness sees it at once. */
#include "arch.h"
#include "abi/qemu_exit.h"
#include "lib.h"
#include "symtab.h"

void backtrace(uint32_t fp, int max)
{
	uint32_t pcs[16];
	int n = arch_stack_walk_kernel(fp, pcs, MIN(max, (int)NELEM(pcs)));

	char name[64];

	kprintf("backtrace:\n");
	for (int i = 0; i < n; i++) {
		symtab_format(name, sizeof name, pcs[i], true);
		kprintf("  #%d 0x%08x %s\n", i, pcs[i], name);
	}
}

void panic(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	splhi();
	va_start(ap, fmt);
	kvsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	kprintf("panic: %s\n", buf);
	backtrace((uint32_t)__builtin_frame_address(0), 16);
	kprintf("halting (status %d)\n", KEXIT_PANIC);
	arch_poweroff(KEXIT_PANIC);
}
