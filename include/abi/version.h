/* The release of kprof-os, which the kernel's banner and the host tool's
 * --version both print. */
#ifndef ABI_VERSION_H
#define ABI_VERSION_H

#define KPROF_VERSION "0.2"

#endif
