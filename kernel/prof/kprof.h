/* devkprof: the kernel PC profiler of Plan 9's kprof(3), at /dev/kpctl,
 * /dev/kpdata and /dev/kpinfo. The format is in include/abi/kprof.h. */
#ifndef KPROF_H
#define KPROF_H

#include <stdint.h>

void kprof_init(uint32_t res);
/* applies one kpctl command (bytes already in the kernel); 0 or -EINVAL */
int kprof_ctl(const char *cmd, uint32_t n);

#endif
