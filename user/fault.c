/* fault: writes where it may not, so the kernel must kill it (status 139)
 * and carry on: null (address 0), kernel (KERN_LINK, supervisor-only),
 * wild (an unmapped page in the middle of user space). */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

int main(int argc, char **argv)
{
	volatile uint32_t *p;

	if (argc != 2)
		goto usage;
	if (strcmp(argv[1], "null") == 0)
		p = (uint32_t *)0;
	else if (strcmp(argv[1], "kernel") == 0)
		p = (uint32_t *)KERN_LINK;
	else if (strcmp(argv[1], "wild") == 0)
		p = (uint32_t *)(USER_LINK + 0x20000000);
	else
		goto usage;
	printf("fault: writing to %p\n", (void *)p);
	*p = 0xdeadbeef;
	fprintf(2, "fault: the write to %p did not fault\n", (void *)p);
	return 1;
usage:
	fprintf(2, "usage: fault null|kernel|wild\n");
	return 1;
}
