/* The kernel's build-id (buildid.c). */
#ifndef BUILDID_H
#define BUILDID_H

const char *kernel_build_id(void);      /* 40 hex digits, or "none" */

#endif
