/* The user half of profiling: monstartup (run by gcrt0 before main) lays
 * out the profil buffer of include/abi/gmon.h and starts the clock's
 * sampling; moncontrol stops and restarts it; _mcount_arc counts one call
 * for mcount.S. Compiled without -pg: mcount must not call itself. */
#include "ulib.h"
#include "stdio.h"
#include "abi/gmon.h"

#define MINSLOTS 256
#define TEXT_PER_SLOT 16        /* a call site is at least 5 bytes: room to spare */

extern char etext[];            /* user.ld: the end of the text */

static struct {
	char *buf;
	unsigned buflen, samplesize;
	struct gmon_arctab *tab;
	struct gmon_arc *arcs;
	int on;
} g;

/* mcount.S reads these two */
struct gmon_arc *_gmon_arcs_on;         /* g.arcs while recording, else NULL */
uint32_t _gmon_mask;                    /* nslots - 1 */

void monstartup(void)
{
	unsigned text = (unsigned)(etext - (char *)USER_LINK);
	unsigned samplesize = (text + 1) & ~1u;         /* scale 65536: a bin per 2 bytes */
	unsigned nslots = MINSLOTS, off;
	char *brk;

	while (nslots < text / TEXT_PER_SLOT)
		nslots <<= 1;
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
	_gmon_mask = nslots - 1;
	if (profil(g.buf, g.buflen, samplesize, USER_LINK, GMON_SCALE_ONE, -1) < 0) {
		fprintf(2, "gcrt0: profil: %s\n", strerror(errno));
		g.buf = NULL;
		return;
	}
	g.on = 1;
	_gmon_arcs_on = g.arcs;
}

void moncontrol(int on)
{
	if (!g.buf)
		return;
	profil(g.buf, g.buflen, g.samplesize, USER_LINK, on ? GMON_SCALE_ONE : 0, -1);
	g.on = on != 0;
	_gmon_arcs_on = on ? g.arcs : NULL;
}

/* The bins the clock adds to, one per 2 bytes of text from USER_LINK, for
 * a program that looks at (or plays with) its own profile; NULL if
 * profiling did not start. */
uint16_t *monbins(unsigned *nbins)
{
	*nbins = g.buf ? g.samplesize / 2 : 0;
	return g.buf ? (uint16_t *)(g.buf + sizeof(struct gmonhdr)) : NULL;
}

/* One call from frompc into the function at selfpc, when mcount.S did not
 * find it in its first slot. The table is a plain hash on the two PCs' low
 * bits (call sites are bytes apart, so they spread), probed linearly. */
__attribute__((regparm(2))) void _mcount_arc(uint32_t frompc, uint32_t selfpc)
{
	struct gmon_arc *t = _gmon_arcs_on, *a;
	uint32_t h;

	if (!t)
		return;
	for (h = (frompc ^ selfpc) & _gmon_mask;; h = (h + 1) & _gmon_mask) {
		a = &t[h];
		if (a->frompc == frompc && a->selfpc == selfpc) {
			if (__builtin_expect(++a->count == 0, 0))
				a->count--;     /* saturate */
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
	return profil(g.buf, g.buflen, g.samplesize, USER_LINK, g.on ? GMON_SCALE_ONE : 0, dirfd);
}
