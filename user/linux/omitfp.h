/* omitfp: the call tree's two halves (omitfp.c, omitfp_leaf.c), which the
 * build may compile with and without frame pointers */
#define NOINLINE __attribute__((noinline))

extern volatile unsigned omitfp_sink;
void spin(unsigned n);
int cmp(const void *a, const void *b);
