/* The user half of profiling: monstartup (run by gcrt0 before main) lays
 * out the profil buffer of include/abi/gmon.h and starts the clock's
 * sampling; moncontrol stops and restarts it; _mcount_arc counts one call
 * for mcount.S. Compiled without -pg: mcount must not call itself. */
#include "ulib.h"
#include "stdio.h"
#include "abi/gmon.h"

#define HASH_MUL 0x9E3779B1u    /* Fibonacci hashing: the top bits mix all of the key */
#define MINSLOTS 256
#define TEXT_PER_SLOT 16        /* a call site is at least 5 bytes: room to spare */

extern char etext[];            /* user.ld: the end of the text */

static struct {
	char *buf;
	unsigned buflen, samplesize;
	struct gmon_arctab *tab;
	struct gmon_arc *arcs;
	uint32_t mask, shift;
	int on;                 /* arcs are being recorded */
} g;

void monstartup(void)
{
	unsigned text = (unsigned)(etext - (char *)USER_BASE);
	unsigned samplesize = (text + 1) & ~1u;         /* scale 65536: a bin per 2 bytes */
	unsigned nslots = MINSLOTS, bits = 8, off;
	char *brk;

	while (nslots < text / TEXT_PER_SLOT) {
		nslots <<= 1;
		bits++;
	}
	off = GMON_ARCTAB_OFF(samplesize);
	g.buflen = off + sizeof(struct gmon_arctab) + nslots * sizeof(struct gmon_arc);
	brk = sbrk(0);
	if (brk == (char *)-1 || sbrk(g.buflen + (-(uintptr_t)brk & 3)) == (void *)-1) {
		fprintf(2, "gcrt0: no memory for the profile buffer\n");
		return;
	}
	g.buf = brk + (-(uintptr_t)brk & 3);
	g.samplesize = samplesize;
	g.tab = (struct gmon_arctab *)(g.buf + off);
	g.arcs = (struct gmon_arc *)(g.tab + 1);
	g.tab->nslots = nslots;
	g.tab->maxarcs = nslots - nslots / 4;   /* never full: probes end */
	g.mask = nslots - 1;
	g.shift = 32 - bits;
	if (profil(g.buf, g.buflen, samplesize, USER_BASE, GMON_SCALE_ONE, -1) < 0) {
		fprintf(2, "gcrt0: profil: %s\n", strerror(errno));
		g.buf = NULL;
		return;
	}
	g.on = 1;
}

void moncontrol(int on)
{
	if (!g.buf)
		return;
	profil(g.buf, g.buflen, g.samplesize, USER_BASE, on ? GMON_SCALE_ONE : 0, -1);
	g.on = on != 0;
}

/* One call from frompc into the function at selfpc. The table is a plain
 * hash: a hit is a hash, a compare of both words and an increment. */
__attribute__((regparm(2))) void _mcount_arc(uint32_t frompc, uint32_t selfpc)
{
	struct gmon_arc *a;
	uint32_t h;

	if (!g.on)
		return;
	h = ((frompc ^ selfpc) * HASH_MUL) >> g.shift;
	for (;; h = (h + 1) & g.mask) {
		a = &g.arcs[h];
		if (a->selfpc == selfpc && a->frompc == frompc) {
			a->count += a->count != 0xFFFFFFFFu;    /* saturate */
			return;
		}
		if (!a->count)
			break;
	}
	if (g.tab->narcs == g.tab->maxarcs) {
		g.tab->overflow++;
		return;
	}
	g.tab->narcs++;
	a->frompc = frompc;
	a->selfpc = selfpc;
	a->count = 1;
}

/* Sends the gmon file to dirfd's directory instead of GMON_PROFDIR. */
int profdir(int dirfd)
{
	if (!g.buf) {
		errno = EPERM;
		return -1;
	}
	return profil(g.buf, g.buflen, g.samplesize, USER_BASE, g.on ? GMON_SCALE_ONE : 0, dirfd);
}
