/* In-kernel unit tests, run by the command-line word `ktest`. They print
 * KTAP and power the machine off with a status that says pass or fail. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "abi/qemu_exit.h"
#include "arch.h"
#include "boottest.h"
#include "clock.h"
#include "cmdline.h"
#include "ctl.h"
#include "dev.h"
#include "kalloc.h"
#include "ktest.h"
#include "lib.h"
#include "multiboot.h"
#include "prof/prof.h"
#include "ring.h"
#include "symtab.h"
#include "uaccess.h"

static int failures, checks;

void ktest_check(bool ok, const char *what, const char *file, int line)
{
	checks++;
	if (!ok) {
		failures++;
		kprintf("    # check failed: %s (%s:%d)\n", what, file, line);
	}
}

static void t_cmdline(void)
{
	struct bootcfg c;
	const struct bootparam *res = bootparam_find("kprof.res");
	uint32_t res_was = res ? *res->num : 0;

	cmdline_defaults(&c);
	CHECK(cmdline_parse("", &c, false) == 0);
	CHECK(c.hz == HZ_DEFAULT && c.quantum == QUANTUM_DEFAULT && !c.ktest);
	CHECK(res != NULL);

	/* an engine's word (kprof.res, devkprof's) sets the engine's variable */
	CHECK(cmdline_parse("hz=5000 quantum=20 kprof.res=3 ktest", &c, false) == 0);
	CHECK(c.hz == 5000 && c.quantum == 20 && res && *res->num == 3 && c.ktest);

	cmdline_defaults(&c);
	CHECK(cmdline_parse("  hz=0x3e8\tquantum=7  ", &c, false) == 0);
	CHECK(c.hz == 1000 && c.quantum == 7);

	cmdline_defaults(&c);
	CHECK(cmdline_parse("hz=abc", &c, false) == 1 && c.hz == HZ_DEFAULT);
	CHECK(cmdline_parse("hz=18", &c, false) == 1 && c.hz == HZ_DEFAULT);        /* below 19 */
	CHECK(cmdline_parse("hz=596592", &c, false) == 1 && c.hz == HZ_DEFAULT);    /* above 1193182/2 */
	CHECK(cmdline_parse("hz=596591", &c, false) == 0 && c.hz == 596591);
	CHECK(cmdline_parse("hz=", &c, false) == 1);
	CHECK(cmdline_parse("hz", &c, false) == 1);
	CHECK(cmdline_parse("hz=99999999999", &c, false) == 1);               /* overflow */
	CHECK(cmdline_parse("kprof.res=9", &c, false) == 1 && res && *res->num == 3);
	CHECK(cmdline_parse("prof.test=maybe", &c, false) == 1);
	if (res)
		*res->num = res_was;
	CHECK(cmdline_parse("bogus=1 other", &c, false) == 2);
	CHECK(cmdline_parse("ktest=maybe", &c, false) == 1);
	CHECK(cmdline_parse("ktest=off", &c, false) == 0 && !c.ktest);
	CHECK(cmdline_parse("failalloc=5", &c, false) == 0 && c.failalloc_every == 5 &&
	      c.failalloc_permille == 0);
	CHECK(cmdline_parse("failalloc=7:1000", &c, false) == 0 && c.failalloc_every == 0 &&
	      c.failalloc_start == 7 && c.failalloc_permille == 1000);
	CHECK(cmdline_parse("failalloc=0", &c, false) == 1);
	CHECK(cmdline_parse("failalloc=1:0", &c, false) == 1);
	CHECK(cmdline_parse("failalloc=1:1001", &c, false) == 1);
	CHECK(cmdline_parse("failalloc=:5", &c, false) == 1);
	CHECK(cmdline_parse("failalloc=3:", &c, false) == 1);
	CHECK(cmdline_parse("failalloc", &c, false) == 1);
}

static void t_parse_uint(void)
{
	uint32_t v;
	CHECK(parse_uint("0", 1, &v) && v == 0);
	CHECK(parse_uint("4294967295", 10, &v) && v == 0xFFFFFFFFu);
	CHECK(!parse_uint("4294967296", 10, &v));
	CHECK(parse_uint("0xffffffff", 10, &v) && v == 0xFFFFFFFFu);
	CHECK(!parse_uint("0x", 2, &v));
	CHECK(!parse_uint("12a", 3, &v));
	CHECK(!parse_uint("", 0, &v));
	CHECK(parse_uint("123456", 3, &v) && v == 123);   /* only n bytes */
}

static void t_kalloc(void)
{
	enum { N = 64 };
	void *pages[N];
	uint32_t before = kalloc_free_pages();
	extern char _kernel_end[];

	for (int i = 0; i < N; i++) {
		pages[i] = kalloc();
		CHECK(pages[i] != NULL);
		CHECK((uint32_t)pages[i] % PGSIZE == 0);
		CHECK((uint32_t)pages[i] >= (uint32_t)_kernel_end || V2P(pages[i]) < 0x100000);
		CHECK(V2P(pages[i]) >= 0x1000);
		CHECK(((uint8_t *)pages[i])[123] == 0);     /* zero-filled */
		memset(pages[i], 0xA5, PGSIZE);
		for (int j = 0; j < i; j++)
			CHECK(pages[j] != pages[i]);
	}
	CHECK(kalloc_free_pages() == before - N);
	for (int i = 0; i < N; i++)
		kfree(pages[i]);
	CHECK(kalloc_free_pages() == before);
	CHECK(kalloc_total_pages() >= before);
}

/* n pages at consecutive addresses, zeroed, off the free count, and back */
static void t_kalloc_contig(void)
{
	uint32_t before = kalloc_free_pages();
	uint8_t *p = kalloc_contig(8), *q;

	CHECK(p != NULL && (uint32_t)p % PGSIZE == 0);
	CHECK(kalloc_free_pages() == before - 8);
	if (p) {
		bool zero = true;
		for (uint32_t i = 0; i < 8 * PGSIZE; i++)
			zero = zero && p[i] == 0;
		CHECK(zero);
		memset(p, 0x5A, 8 * PGSIZE);
		/* none of its pages is handed out again */
		q = kalloc();
		CHECK(q != NULL && (q < p || q >= p + 8 * PGSIZE));
		if (q)
			kfree(q);
		kfree_contig(p, 8);
	}
	CHECK(kalloc_free_pages() == before);
	CHECK(kalloc_contig(0) == NULL);
	CHECK(kalloc_contig(kalloc_total_pages() + 1) == NULL);
	CHECK(kalloc_free_pages() == before);
}

/* Device text longer than a page arrives whole; an add that cannot be kept
 * makes the open fail instead of cutting the text short. */
static void t_textbuf(void)
{
	uint32_t before = kalloc_free_pages();
	struct textbuf t;
	struct file f;
	char line[16], *big;

	memset(&f, 0, sizeof f);
	CHECK(text_begin(&t));
	for (uint32_t i = 0; i < 3000; i++)
		text_add(&t, "line %04u\n", i);         /* 10 bytes each: 30000 */
	CHECK(text_finish(&t, &f) == 0);
	CHECK(snap_size(&f) == 30000);
	CHECK(snap_read(&f, line, 10, 4090) == 10 && memcmp(line, "line 0409\n", 10) == 0);
	CHECK(snap_read(&f, line, 16, 29990) == 10 && memcmp(line, "line 2999\n", 10) == 0);
	snap_close(&f);
	CHECK(kalloc_free_pages() == before);

	big = kalloc();
	CHECK(big != NULL);
	if (big) {
		memset(big, 'x', 300);          /* longer than text_add's line buffer */
		CHECK(text_begin(&t));
		text_add(&t, "%s!", big);
		CHECK(text_finish(&t, &f) == 0 && snap_size(&f) == 301);
		CHECK(snap_read(&f, line, 2, 299) == 2 && memcmp(line, "x!", 2) == 0);
		snap_close(&f);
		memset(big, 'x', PGSIZE - 1);   /* one add of more than a page */
		CHECK(text_begin(&t));
		text_add(&t, "ok\n");
		text_add(&t, "%s!", big);
		text_add(&t, "after\n");
		CHECK(text_finish(&t, &f) == -E2BIG);
		kfree(big);
	}
	CHECK(kalloc_free_pages() == before);
}

/* copyin_array at the edges of user space, in an address space with only
 * the top user page mapped. */
static void t_copyin_array(void)
{
	uint32_t before = kalloc_free_pages();
	uint32_t *pd = arch_pgdir_new(), top = USER_TOP - PGSIZE;
	uint8_t *page = kalloc(), dst[16];

	CHECK(pd != NULL && page != NULL && arch_map_user(pd, top, page));
	for (int i = 0; i < PGSIZE; i++)
		page[i] = (uint8_t)i;
	/* the last bytes: end-1 and end-4 */
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP - 1, 1, 1) == 0 && dst[0] == 0xFF);
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP - 8, 2, 4) == 0 && dst[0] == 0xF8);
	CHECK(copyin_array_pgdir(pd, dst, top, 4, 4) == 0 && dst[15] == 15);
	/* at and past the end, and across it */
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP, 1, 1) == -EFAULT);
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP + 1, 1, 1) == -EFAULT);
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP - 4, 2, 4) == -EFAULT);
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP - 4, 1, 5) == -EFAULT);
	/* wrap-around of the address, and kernel addresses */
	CHECK(copyin_array_pgdir(pd, dst, 0xFFFFFFF8u, 4, 4) == -EFAULT);
	CHECK(copyin_array_pgdir(pd, dst, KERN_LINK, 1, 4) == -EFAULT);
	CHECK(copyin_array_pgdir(pd, dst, USER_BASE - 4, 2, 4) == -EFAULT);
	/* unmapped, and from an unmapped page into the mapped one */
	CHECK(copyin_array_pgdir(pd, dst, top - 8, 1, 4) == -EFAULT);
	CHECK(copyin_array_pgdir(pd, dst, top - 4, 2, 4) == -EFAULT);
	/* n * size: 0x40000001 * 4 wraps to 4, which would copy one word */
	CHECK(copyin_array_pgdir(pd, dst, top, 0x40000001u, 4) == -E2BIG);
	CHECK(copyin_array_pgdir(pd, dst, top, 4, 0x40000001u) == -E2BIG);
	CHECK(copyin_array_pgdir(pd, dst, top, 0xFFFFFFFFu, 0xFFFFFFFFu) == -E2BIG);
	/* nothing to copy, and an element of no size */
	CHECK(copyin_array_pgdir(pd, dst, USER_TOP, 0, 4) == 0);
	CHECK(copyin_array_pgdir(pd, dst, top, 4, 0) == -EINVAL);
	/* no current process at boot: the current address space has no user part */
	CHECK(copyin_array(dst, top, 1, 4) == -EFAULT);
	if (pd)
		arch_pgdir_free(pd);    /* frees the page too */
	CHECK(kalloc_free_pages() == before);
}

static void t_ring(void)
{
	static uint8_t buf[8];
	struct ring r;
	uint8_t c;

	ring_init(&r, buf, sizeof buf);
	CHECK(ring_count(&r) == 0 && !ring_get(&r, &c));
	for (int i = 0; i < 8; i++)
		CHECK(ring_put(&r, (uint8_t)i));
	CHECK(!ring_put(&r, 99));                       /* full */
	CHECK(ring_count(&r) == 8 && ring_space(&r) == 0);
	for (int i = 0; i < 8; i++)
		CHECK(ring_get(&r, &c) && c == i);
	/* wrap the free-running indices past 2^32 */
	r.head = r.tail = 0xFFFFFFFEu;
	for (int i = 0; i < 5; i++)
		CHECK(ring_put(&r, (uint8_t)(10 + i)));
	CHECK(ring_count(&r) == 5);
	for (int i = 0; i < 5; i++)
		CHECK(ring_get(&r, &c) && c == 10 + i);
	CHECK(ring_count(&r) == 0);
}

static bool fmt_is(const char *want, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (strcmp(buf, want) != 0) {
		kprintf("    # got '%s' want '%s'\n", buf, want);
		return false;
	}
	return true;
}

static void t_printf(void)
{
	char small[5];

	CHECK(fmt_is("42 -7 0", "%d %i %u", 42, -7, 0));
	CHECK(fmt_is("-2147483648", "%d", (int)0x80000000));
	CHECK(fmt_is("4294967295", "%u", 0xFFFFFFFFu));
	CHECK(fmt_is("ff FF 0x0000abcd", "%x %X %p", 255, 255, (void *)0xabcd));
	CHECK(fmt_is("[   7][7   ][007]", "[%4d][%-4d][%03d]", 7, 7, 7));
	CHECK(fmt_is("[-07]", "[%03d]", -7));
	CHECK(fmt_is("[  ab][ab  ][abc]", "[%4s][%-4s][%.3s]", "ab", "ab", "abcdef"));
	CHECK(fmt_is("c%", "%c%%", 'c'));
	CHECK(fmt_is("(null)", "%s", (char *)NULL));
	CHECK(fmt_is("18446744073709551615 ffffffffff", "%llu %llx", ~0ull, 0xffffffffffull));
	CHECK(ksnprintf(small, sizeof small, "%s", "truncated") == 9);
	CHECK(strcmp(small, "trun") == 0);
}

static void t_strings(void)
{
	char b[8];
	CHECK(strlcpy(b, "abcdefghij", sizeof b) == 10 && strcmp(b, "abcdefg") == 0);
	CHECK(strncmp("abc", "abd", 2) == 0 && strncmp("abc", "abd", 3) < 0);
	CHECK(memcmp("ab", "ac", 2) < 0);
	memcpy(b, "1234567", 8);
	memmove(b + 1, b, 6);
	CHECK(strcmp(b, "1123456") == 0);
}

/* the profiler's saturating counter: stops at 0xFFFFFFFF and counts the
 * increments it refused */
static void t_saturate(void)
{
	uint32_t c = 0xFFFFFFFEu, lost = 0, zero = 0;

	prof_add_sat(&c, 1, &lost);
	CHECK(c == 0xFFFFFFFFu && lost == 0);
	prof_add_sat(&c, 1, &lost);
	prof_add_sat(&c, 1, &lost);
	CHECK(c == 0xFFFFFFFFu && lost == 2);
	prof_add_sat(&zero, 1, &lost);
	CHECK(zero == 1 && lost == 2);
	c = 0xFFFFFFF0u;                        /* a weighted sample: 15 fit, 5 do not */
	prof_add_sat(&c, 20, &lost);
	CHECK(c == 0xFFFFFFFFu && lost == 7);
	prof_add_sat(&zero, 0xFFFFFFFFu, &lost);   /* 1 + that: 1 does not fit */
	CHECK(zero == 0xFFFFFFFFu && lost == 8);
}

/* A multiboot2 information block built by hand: good tags are taken, and
 * a malformed tag is reported and not followed. */
static void t_multiboot(void)
{
	static uint32_t mbi[64] __attribute__((aligned(8)));
	static struct bootinfo bi;
	uint32_t *t;

	memset(mbi, 0, sizeof mbi);
	mbi[0] = 8 + 16 + 8 + 40 + 8;           /* total size */
	t = &mbi[2];                            /* command line tag: type 1 */
	t[0] = 1, t[1] = 8 + 8;
	memcpy(&t[2], "hz=100", 7);
	t = &mbi[6];                            /* memory map: type 6, one entry */
	t[0] = 6, t[1] = 16 + 24;
	t[2] = 24, t[3] = 0;
	t[4] = 0x100000, t[5] = 0, t[6] = 0x100000, t[7] = 0, t[8] = 1;
	t = &mbi[16];                           /* end tag */
	t[0] = 0, t[1] = 8;
	multiboot_parse(MB2_BOOTLOADER_MAGIC, V2P(mbi), &bi);
	CHECK(bi.errors == 0 && strcmp(bi.cmdline, "hz=100") == 0);
	CHECK(bi.navail == 1 && bi.avail[0].start == 0x100000 && bi.avail[0].end == 0x200000);
	CHECK(bi.mem_kib == 1024);

	mbi[7] = 0x1000;                        /* the map tag now runs past the end */
	kprintf("    # expect a 'malformed' line:\n");
	multiboot_parse(MB2_BOOTLOADER_MAGIC, V2P(mbi), &bi);
	CHECK(bi.errors == 1 && bi.navail == 0 && strcmp(bi.cmdline, "hz=100") == 0);

	mbi[7] = 16 + 24;
	mbi[3] = 9;                             /* a command line with no NUL inside */
	memcpy(&mbi[4], "abcdefgh", 8);
	multiboot_parse(MB2_BOOTLOADER_MAGIC, V2P(mbi), &bi);
	CHECK(bi.errors == 1 && bi.cmdline[0] == 0);

	multiboot_parse(0x12345678, V2P(mbi), &bi);   /* not multiboot2 */
	CHECK(bi.errors == 1 && bi.navail == 0);
}

/* control messages: words split on single spaces, one newline allowed */
static void t_ctl(void)
{
	struct ctlmsg m;
	uint32_t v;

	CHECK(ctl_parse("hz 100\n", 7, 64, &m) == 0 && m.nw == 2 && m.n == 6);
	CHECK(ctl_cmd(&m, "hz", 1) && !ctl_cmd(&m, "hz", 0) && ctl_uint(&m, 1, &v) && v == 100);
	CHECK(!ctl_uint(&m, 0, &v) && !ctl_uint(&m, 2, &v) && !ctl_is(&m, 2, "x"));
	CHECK(ctl_parse("start", 5, 64, &m) == 0 && ctl_cmd(&m, "start", 0));
	CHECK(!ctl_cmd(&m, "star", 0) && !ctl_cmd(&m, "starts", 0));
	CHECK(ctl_parse("", 0, 64, &m) == -EINVAL);
	CHECK(ctl_parse("\n", 1, 64, &m) == -EINVAL);
	CHECK(ctl_parse("\n\n", 2, 64, &m) == -EINVAL);
	CHECK(ctl_parse(" stop", 5, 64, &m) == -EINVAL);
	CHECK(ctl_parse("stop ", 5, 64, &m) == -EINVAL);
	CHECK(ctl_parse("hz  5", 5, 64, &m) == -EINVAL);
	CHECK(ctl_parse("hz\t5", 4, 64, &m) == -EINVAL);
	CHECK(ctl_parse("a\x80", 2, 64, &m) == -EINVAL);
	CHECK(ctl_parse("start", 5, 4, &m) == -EINVAL);             /* over max */
	CHECK(ctl_parse("a b c d e f g h", 15, 64, &m) == 0 && m.nw == 8);
	CHECK(ctl_parse("a b c d e f g h i", 17, 64, &m) == -EINVAL);
}

/* a * b / c for a sleep's ticks rescaled to a new rate: exact where the
 * product overflows 64 bits, and saturating where the result does */
static void t_muldiv(void)
{
	uint64_t left = 1865817550ull * 50000;          /* ticks of a 21.6-day sleep at 50 kHz */

	CHECK(clock_muldiv(7, 3, 2, false) == 10 && clock_muldiv(7, 3, 2, true) == 11);
	CHECK(clock_muldiv(0, 5, 7, true) == 0);
	CHECK(clock_muldiv(left, 200000000u, 50000000u, true) == left * 4);
	CHECK(clock_muldiv(~0ull, 1000000000u, 1000000000u, false) == ~0ull);
	CHECK(clock_muldiv(~0ull / 3, 4, 1, false) == ~0ull);
	CHECK(clock_muldiv(~0ull / 3 + 1, 3, 3, true) == ~0ull / 3 + 1);
	CHECK(clock_muldiv(1ull << 40, 1000000000u, 596590000u, false) ==
	      1842993727310ull);       /* 2^40 * 1e9 / 596590000, floor */
}

static int cmpint(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* heapsort: sorted, and the same elements, for several sizes and orders */
static void t_ksort(void)
{
	static int v[300];
	uint32_t x = 12345;

	for (int n = 0; n <= 300; n += 37) {
		long sum = 0, after = 0;
		for (int i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			v[i] = (int)(x >> 16) % 50 - 25;       /* duplicates, negatives */
			sum += v[i];
		}
		ksort(v, n, sizeof v[0], cmpint);
		for (int i = 0; i < n; i++) {
			after += v[i];
			CHECK(i == 0 || v[i - 1] <= v[i]);
		}
		CHECK(sum == after);
	}
	for (int i = 0; i < 100; i++)
		v[i] = 100 - i;                 /* reversed */
	ksort(v, 100, sizeof v[0], cmpint);
	CHECK(v[0] == 1 && v[99] == 100);
}

/* The kernel's table: sorted, and each symbol found at its first byte and
 * its last, and not one past its end (there the next one starts, or none
 * does); outside the text, nothing. */
static void t_symtab(void)
{
	const struct symtab *t;
	uint32_t n;

	symtab_init();
	t = symtab_kernel();
	n = symtab_count(t);
	CHECK(n > 100);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = symtab_addr(t, i), end;
		int k = symtab_find(t, a);
		if (i + 1 < n)
			CHECK(a <= symtab_addr(t, i + 1));
		if (!symtab_covers(t, a))
			continue;               /* _text_end: a bound, not code */
		CHECK(k >= 0 && symtab_addr(t, k) == a);
		if (k < 0 || (uint32_t)k != i)
			continue;               /* a twin at the same address is preferred */
		end = symtab_size(t, i) ? a + symtab_size(t, i) :
		      i + 1 < n ? symtab_addr(t, i + 1) : a + 1;
		if (end == a)
			continue;
		CHECK(symtab_find(t, end - 1) == k);
		CHECK(symtab_find(t, end) != k);
	}
	CHECK(symtab_find(t, symtab_addr(t, 0) - 1) < 0);
	CHECK(symtab_find(t, 0) < 0 && symtab_find(t, 0xFFFFFFFFu) < 0);
	CHECK(symtab_find(&symtab_none, symtab_addr(t, 0)) < 0);
	CHECK(strcmp(symtab_name(t, symtab_find(t, (uint32_t)t_symtab)), "t_symtab") == 0);
}

static const struct ktest tests[] = {
	{ t_muldiv, "clock_muldiv" },
	{ t_cmdline, "cmdline_parser" },
	{ t_parse_uint, "parse_uint" },
	{ t_kalloc, "page_allocator" },
	{ t_kalloc_contig, "contiguous_pages" },
	{ t_textbuf, "text_builder_grows" },
	{ t_copyin_array, "copyin_array_edges" },
	{ t_ring, "ring_buffer" },
	{ t_printf, "printf_formats" },
	{ t_strings, "strings" },
	{ t_saturate, "saturating_counter" },
	{ t_multiboot, "multiboot_parser" },
	{ t_ctl, "control_messages" },
	{ t_ksort, "ksort" },
	{ t_symtab, "kernel_symbols" },
	{ ktest_prof_engines, "profiling_engines" },
	{ ktest_stack_walk, "stack_walk" },
	{ ktest_prof_frame, "sample_frame_walk" },
};
extern const struct ktest _ktests_start[], _ktests_end[];

void ktest_run(void)
{
	unsigned n = NELEM(tests) + (unsigned)(_ktests_end - _ktests_start);
	int failed = 0;

	kprintf("KTAP version 1\n1..%u\n", n);
	for (unsigned i = 0; i < n; i++) {
		const struct ktest *t = i < NELEM(tests) ? &tests[i] : &_ktests_start[i - NELEM(tests)];
		failures = 0;
		t->fn();
		kprintf("%sok %u %s\n", failures ? "not " : "", i + 1, t->name);
		if (failures)
			failed++;
	}
	kprintf("# ktest: %u tests, %d failed, %d checks\n", n, failed, checks);
	arch_poweroff(failed ? KEXIT_FAIL : KEXIT_OK);
}
