/* The unwind-table service: each program's table (include/unwtab.h), made
 * from its ELF's .eh_frame at spawn into its program record while some
 * engine holds the service (the stack engine, while it records), and
 * given back at exit. A program without .eh_frame, or whose table could
 * not be made, has none and is walked by frame pointers. */
#ifndef PROF_UNWIND_H
#define PROF_UNWIND_H

#include "unwtab.h"

struct proc;
struct elf_image;

void unwind_hold(void);
void unwind_release(void);
/* from prof_spawn and prof_exit */
void unwind_spawn(struct proc *p, const struct elf_image *img);
void unwind_exit(struct proc *p);

#endif
