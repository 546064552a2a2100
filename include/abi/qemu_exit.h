/* How the kernel ends a QEMU run: it writes one of these to the
 * isa-debug-exit port, and QEMU exits with status (code << 1) | 1.
 * tests/qemu reads the values from this file, so they are written once. */
#ifndef ABI_QEMU_EXIT_H
#define ABI_QEMU_EXIT_H

#define QEMU_EXIT_PORT  0xf4
#define KEXIT_OK        0     /* clean halt, or all ktests passed -> status 1 */
#define KEXIT_FAIL      1     /* a ktest failed                    -> status 3 */
#define KEXIT_PANIC     2     /* kernel panic or trap report       -> status 5 */

#endif
