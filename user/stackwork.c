/* stackwork: call trees of known shape, for the stack engine.
 *
 *   stackwork tree N     main -> a -> b -> leaf, and main -> c -> leaf,
 *                        the first twice as long as the second, N rounds
 *   stackwork tree2 N    the same, but c's call of leaf does twice the work
 *   stackwork sys N      main -> s1 -> s2 -> the kwork system call, N times
 *   stackwork broken HOW a loop with its frame pointer broken: null,
 *                        self (a cycle), kernel (into kernel memory),
 *                        unmapped (a user page that is not there), odd
 *                        (misaligned)
 *   stackwork tiny N     most time in tiny leaf functions, so that ticks
 *                        land in prologues and epilogues: main -> t1 ->
 *                        tiny, main -> t2 -> tiny
 *   stackwork cheap N    main -> g1 -> g2 -> getpid(), N times: most ticks
 *                        in the system call's entry and exit, whose stubs
 *                        hold the user's registers in the registers
 *   stackwork inline N   main -> outer, and in outer the work of inner,
 *                        which the compiler inlined: the DWARF names it
 *   stackwork frameless N  leaves with no frame pointer, called from
 *                        functions with one: main -> f0 -> fl0 (pushes
 *                        nothing), main -> f4 -> fl4 (pushes one word),
 *                        main -> f12 -> fl12 (three), each as long
 * Every routine is its own (noipa), so the stacks are the source's, but
 * inner, which is inlined on purpose. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

static volatile unsigned sink;

__attribute__((noipa)) static void leaf(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

__attribute__((noipa)) static void b(unsigned n) { leaf(n); sink++; }
__attribute__((noipa)) static void a(unsigned n) { b(n); sink++; }
__attribute__((noipa)) static void c(unsigned n) { leaf(n); sink++; }

__attribute__((noipa)) static void s2(unsigned n) { kwork(KWORK_LOOP, n); sink++; }
__attribute__((noipa)) static void s1(unsigned n) { s2(n); sink++; }

__attribute__((noipa)) static void g2(void) { sink += getpid(); }
__attribute__((noipa)) static void g1(void) { g2(); sink++; }

__attribute__((noipa)) static unsigned tiny(unsigned x) { return x * 3 + 1; }
__attribute__((noipa)) static void t1(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += tiny(i);
}
__attribute__((noipa)) static void t2(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += tiny(i) + 1;
}

/* always inlined: it has no frame, and only the DWARF knows it is there */
static inline __attribute__((always_inline)) void inner(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i ^ (i >> 3);
}
__attribute__((noipa)) static void outer(unsigned n) { inner(n); sink++; }

/* Leaves without a frame pointer (as assembly, or code built without
 * one, has them): each spins n rounds. A walk by frame pointers from
 * inside one starts at its caller's frame and so loses the caller; the
 * caller's return address is at the stack pointer (fl0), a word above it
 * (fl4), or three (fl12, which the host cannot tell from the code's two
 * words: it must mark the stack, not guess). */
void fl0(unsigned n);
void fl4(unsigned n);
void fl12(unsigned n);
__asm__(".text\n"
	".type fl0, @function\n"
	"fl0:\tmov 4(%esp), %ecx\n"
	"1:\tdec %ecx\n\tjnz 1b\n\tret\n"
	".size fl0, . - fl0\n"
	".type fl4, @function\n"
	"fl4:\tpush %ebx\n\tmov 8(%esp), %ebx\n"
	"1:\tdec %ebx\n\tjnz 1b\n\tpop %ebx\n\tret\n"
	".size fl4, . - fl4\n"
	".type fl12, @function\n"
	"fl12:\tpush %ebx\n\tpush %esi\n\tpush %edi\n\tmov 16(%esp), %ebx\n"
	"1:\tdec %ebx\n\tjnz 1b\n\tpop %edi\n\tpop %esi\n\tpop %ebx\n\tret\n"
	".size fl12, . - fl12\n");
__attribute__((noipa)) static void f0(unsigned n) { fl0(n); sink++; }
__attribute__((noipa)) static void f4(unsigned n) { fl4(n); sink++; }
__attribute__((noipa)) static void f12(unsigned n) { fl12(n); sink++; }

/* spins n rounds with ebp set to fp, then puts ebp back */
__attribute__((noipa)) static void broken(unsigned fp, unsigned n)
{
	__asm__ volatile("push %%ebp\n\t"
			 "mov %0, %%ebp\n"
			 "1:\tdec %1\n\t"
			 "jnz 1b\n\t"
			 "pop %%ebp"
			 : : "r"(fp), "r"(n) : "memory", "cc");
}

static void usage(void)
{
	fprintf(2, "usage: stackwork tree|tree2|sys|cheap|tiny|inline|frameless N | stackwork broken null|self|kernel|unmapped|odd\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned n;

	if (argc != 3)
		usage();
	if (!strcmp(argv[1], "broken")) {
		static unsigned self[2];
		unsigned fp;
		self[0] = (unsigned)self;       /* a frame whose caller is itself */
		self[1] = USER_LINK + 0x20;
		if (!strcmp(argv[2], "null"))
			fp = 0;
		else if (!strcmp(argv[2], "self"))
			fp = (unsigned)self;
		else if (!strcmp(argv[2], "kernel"))
			fp = KERN_LINK + 0x100000;
		else if (!strcmp(argv[2], "unmapped"))
			fp = USER_TOP - 0x800000;
		else if (!strcmp(argv[2], "odd"))
			fp = (unsigned)self + 2;
		else
			usage();
		broken(fp, 30000000);
		printf("stackwork: broken %s done\n", argv[2]);
		return 0;
	}
	if (parse_uint(argv[2], &n) < 0)
		usage();
	if (!strcmp(argv[1], "tree") || !strcmp(argv[1], "tree2"))
		for (unsigned i = 0; i < n; i++) {
			a(200000);
			c(argv[1][4] ? 200000 : 100000);
		}
	else if (!strcmp(argv[1], "sys"))
		for (unsigned i = 0; i < n; i++)
			s1(100000);
	else if (!strcmp(argv[1], "cheap"))
		for (unsigned i = 0; i < n; i++)
			g1();
	else if (!strcmp(argv[1], "inline"))
		for (unsigned i = 0; i < n; i++)
			outer(300000);
	else if (!strcmp(argv[1], "frameless"))
		for (unsigned i = 0; i < n; i++) {
			f0(300000);
			f4(300000);
			f12(300000);
		}
	else if (!strcmp(argv[1], "tiny"))
		for (unsigned i = 0; i < n; i++) {
			t1(20000);
			t2(10000);
		}
	else
		usage();
	printf("stackwork: %s done\n", argv[1]);
	return 0;
}
