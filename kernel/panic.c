/* panic() and the frame-pointer backtrace. A panic powers the machine off
 * with the panic status so that a test harness sees it at once. */
#include "arch.h"
#include "abi/qemu_exit.h"
#include "lib.h"

extern char _text_start[], _text_end[], _kernel_end[];

void backtrace(uint32_t ebp, int max)
{
	kprintf("backtrace:\n");
	for (int i = 0; i < max; i++) {
		uint32_t *frame = (uint32_t *)ebp;
		uint32_t ret;
		/* stop at the end of the chain or at anything that is not a
		 * plausible kernel stack address */
		if (ebp == 0 || ebp % 4 || ebp < 0x1000 || ebp >= 0x40000000u)
			break;
		ret = frame[1];
		if (ret < (uint32_t)_text_start || ret >= (uint32_t)_text_end)
			break;
		kprintf("  #%d 0x%08x\n", i, ret);
		ebp = frame[0];
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
