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

/* A test declared in the file of what it tests (an engine's, so that the
 * engine is one file): KTEST(fn, "name") after fn. They run after
 * ktest.c's own list; the linker gathers them in .ktests. */
struct ktest {
	void (*fn)(void);
	const char *name;
};
#define KTEST(f, n) \
	static const struct ktest ktest_entry_##f \
	__attribute__((used, section(".ktests"), aligned(4))) = { f, n }

#endif
