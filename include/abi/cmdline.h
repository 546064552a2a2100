/* The kernel command line's defaults and limits, which the boot tests check
 * against (kernel/cmdline.c parses the words). */
#ifndef ABI_CMDLINE_H
#define ABI_CMDLINE_H

#define HZ_DEFAULT      1000    /* PIT channel 0 rate, Hz */
#define QUANTUM_DEFAULT 10      /* scheduler time slice, ms */
#define QUANTUM_MAX     1000

#endif
