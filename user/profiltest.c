/* profiltest: each error of profil(2), produced on purpose, and the
 * features the QEMU tests need a program for. Built plain and as .pg:
 *   profiltest eperm        (plain) profil is refused: EPERM
 *   profiltest.pg errors    EBADF, ENOTDIR, EROFS, EINVAL, EFAULT, EALREADY
 *   profiltest.pg dir PATH  the gmon file goes into PATH (a new directory)
 *   profiltest.pg arcs      more call sites than the arc table holds
 *   profiltest.pg off N     moncontrol(0), then N loops nobody may see
 *   profiltest.pg sbrk N    gives the heap (and the profil buffer in it)
 *                           back, then runs N loops in user mode and N in
 *                           the kernel: the kernel must lose those samples
 *   profiltest.pg fill V N  sets every bin to V, then runs N loops: with V
 *                           65535 every sample of the loop is lost
 * Each check prints "profiltest: NAME: ok" or "... FAIL (why)". */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"
#include "abi/gmon.h"

#define SMALL 4096
static char buf[SMALL] __attribute__((aligned(4)));
static int failed;

/* a profil call that must fail with want */
static void expect(const char *name, int want, void *b, unsigned len, unsigned ss,
		   unsigned scale, int dirfd)
{
	int r = profil(b, len, ss, USER_LINK, scale, dirfd);

	if (r == -1 && errno == want) {
		printf("profiltest: %s: ok\n", name);
		return;
	}
	printf("profiltest: %s: FAIL (returned %d, %s)\n", name, r, r < 0 ? strerror(errno) : "");
	failed = 1;
}

static void errors(void)
{
	int file = open("/bin/echo", O_RDONLY), bindir = open("/bin", O_RDONLY);

	expect("ebadf", EBADF, buf, SMALL, 1024, GMON_SCALE_ONE, 12);
	expect("ebadf-negative", EBADF, buf, SMALL, 1024, GMON_SCALE_ONE, -2);
	expect("enotdir", ENOTDIR, buf, SMALL, 1024, GMON_SCALE_ONE, file);
	expect("erofs", EROFS, buf, SMALL, 1024, GMON_SCALE_ONE, bindir);
	expect("einval-scale", EINVAL, buf, SMALL, 1024, GMON_SCALE_ONE + 1, -1);
	expect("einval-scale-max", EINVAL, buf, SMALL, 1024, 0xFFFFFFFFu, -1);
	expect("einval-size", EINVAL, buf, SMALL, SMALL, GMON_SCALE_ONE, -1);
	expect("efault-kernel", EFAULT, (void *)KERN_LINK, SMALL, 1024, GMON_SCALE_ONE, -1);
	expect("efault-unmapped", EFAULT, (void *)(USER_LINK + 0x20000000), SMALL, 1024,
	       GMON_SCALE_ONE, -1);
	expect("efault-wrap", EFAULT, (void *)(USER_TOP - 1024), SMALL, 1024, GMON_SCALE_ONE, -1);
	/* gcrt0 set up a buffer already: another one may not replace it */
	expect("ealready", EALREADY, buf, SMALL, 1024, GMON_SCALE_ONE, -1);
}

/* 3000 distinct call sites of one function, 3000 arcs: more than gcrt0's
 * table holds for this much text (a slot per 16 bytes, 3/4 of them used) */
__attribute__((noipa)) static void leaf(void) {}
#define C10 leaf(); leaf(); leaf(); leaf(); leaf(); leaf(); leaf(); leaf(); leaf(); leaf();
#define C100 C10 C10 C10 C10 C10 C10 C10 C10 C10 C10
#define C1000 C100 C100 C100 C100 C100 C100 C100 C100 C100 C100
__attribute__((noipa)) static void many(void) { C1000 C1000 C1000 }

__attribute__((noipa)) static void unseen(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x = x * 3 + 1;
}

int main(int argc, char **argv)
{
	unsigned n, v;

	if (argc == 2 && strcmp(argv[1], "eperm") == 0) {
		expect("eperm", EPERM, buf, SMALL, 1024, GMON_SCALE_ONE, -1);
	} else if (argc == 2 && strcmp(argv[1], "errors") == 0) {
		errors();
	} else if (argc == 3 && strcmp(argv[1], "dir") == 0) {
		int fd;
		if (mkdir(argv[2]) < 0 || (fd = open(argv[2], O_RDONLY)) < 0 || profdir(fd) < 0) {
			printf("profiltest: dir: FAIL (%s)\n", strerror(errno));
			return 1;
		}
		printf("profiltest: dir: ok\n");
	} else if (argc == 2 && strcmp(argv[1], "arcs") == 0) {
		many();
		printf("profiltest: arcs: ok\n");
	} else if (argc == 3 && strcmp(argv[1], "sbrk") == 0 && parse_uint(argv[2], &n) == 0) {
		extern char end[];      /* user.ld: the heap starts at the next page */
		char *heap = (char *)(((uintptr_t)end + PGSIZE - 1) & ~(uintptr_t)(PGSIZE - 1));
		if (sbrk(-((char *)sbrk(0) - heap)) == (void *)-1) {
			printf("profiltest: sbrk: FAIL (%s)\n", strerror(errno));
			return 1;
		}
		/* no call of a -pg function from here: mcount's table is gone too */
		for (volatile unsigned i = 0; i < n; i++)
			;
		kwork(KWORK_LOOP, n);
		printf("profiltest: sbrk: ok\n");
	} else if (argc == 4 && strcmp(argv[1], "fill") == 0 && parse_uint(argv[2], &v) == 0 &&
		   v <= GMON_BIN_MAX && parse_uint(argv[3], &n) == 0) {
		unsigned nb;
		uint16_t *b = monbins(&nb);
		if (!b) {
			printf("profiltest: fill: FAIL (no bins)\n");
			return 1;
		}
		for (unsigned i = 0; i < nb; i++)
			b[i] = v;
		for (volatile unsigned i = 0; i < n; i++)
			;
		printf("profiltest: fill: ok\n");
	} else if (argc == 3 && strcmp(argv[1], "off") == 0 && parse_uint(argv[2], &n) == 0) {
		moncontrol(0);
		unseen(n);
		moncontrol(1);
		printf("profiltest: off: ok\n");
	} else {
		fprintf(2, "usage: profiltest eperm|errors|dir PATH|arcs|off N|sbrk N|fill V N\n");
		return 2;
	}
	return failed;
}
