/* In-kernel unit tests (ktest.c): the check that every test file uses. */
#ifndef KTEST_H
#define KTEST_H

#include <stdbool.h>

#define CHECK(cond) ktest_check((cond), #cond, __FILE__, __LINE__)
void ktest_check(bool ok, const char *what, const char *file, int line);

/* tests that live beside what they test */
void ktest_prof_engines(void);          /* prof/ktest_prof.c */
void ktest_stack_walk(void);
void ktest_prof_frame(void);
void ktest_profil_bins(void);           /* prof/profil.c */

#endif
