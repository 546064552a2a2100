/* The engines built into the kernel: prof_init() registers each. */
#ifndef PROF_ENGINES_H
#define PROF_ENGINES_H

#include <stdbool.h>
#include <stdint.h>

void kprof_init(uint32_t res);          /* devkprof.c */
void example_init(bool on);             /* example.c */
void dosprof_init(bool test);           /* dosprof.c: DosProfile; prof.test adds /dev/dosproftest */
void testeng_init(void);                /* testeng.c: /dev/proftest */
void profil_init(void);                 /* profil.c: profil(2) */
void heat_init(void);                   /* heat.c: /dev/heatctl, /dev/heat */
void usample_init(void);                /* usample.c: /dev/usample */

#endif
