/* The console's line discipline (kernel/console.c), as user programs and
 * the test harness see it. */
#ifndef ABI_CONSOLE_H
#define ABI_CONSOLE_H

#define CONS_LINEMAX    256     /* a typed line keeps at most CONS_LINEMAX - 1 characters */

#endif
