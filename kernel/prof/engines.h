/* The engines built into the kernel, one line each: prof_init() calls
 * NAME_init() for each, in this order, which is also the order in which
 * the fan-out calls their samples. An engine's init registers its tables
 * and devices; its boot words are its own (BOOTPARAM_* in cmdline.h, in
 * the engine's file). */
#ifndef PROF_ENGINES_H
#define PROF_ENGINES_H

#define PROF_ENGINES(X) \
	X(kprof)        /* devkprof.c: /dev/kpctl, /dev/kpdata; kprof.res */ \
	X(example)      /* example.c: the README's example; prof.example */ \
	X(profil)       /* profil.c: profil(2) and the gmon files */ \
	X(dosprof)      /* dosprof.c: DosProfile */ \
	X(heat)         /* heat.c: /dev/heatctl, /dev/heat */ \
	X(usample)      /* usample.c: /dev/usample */ \
	X(mc)           /* mc.c: Monte Carlo, ProfileStart/ProfileStop, /dev/mcprof */ \
	X(stacks)       /* stacks.c: call stacks, /dev/stackctl, /dev/stacks */ \
	X(testeng)      /* testeng.c: /dev/proftest, with prof.test */

#define X(name) void name##_init(void);
PROF_ENGINES(X)
#undef X

#endif
