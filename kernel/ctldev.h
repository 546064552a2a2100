/* The shape of every profiler's device: control files, each write one
 * command, and snapshot files, each made whole at open and read from the
 * copy (so a read sees one moment, however long it takes). A device is a
 * table of these; ctldev.c supplies the dirtab and the file operations. */
#ifndef CTLDEV_H
#define CTLDEV_H

#include <stdint.h>
#include "dev.h"

struct ctlfile {
	const char *name;
	/* a write: one command, 0 or -errno; NULL: the file is not written */
	int (*ctl)(const char *buf, uint32_t n);
	/* a text snapshot: its lines, at open */
	void (*text)(struct textbuf *t);
	/* or a binary one: fill f with snap_open/snap_write, 0 or -errno */
	int (*open)(struct file *f);
	uint32_t (*size)(void);        /* optional: a snapshot's size unopened */
	uint32_t align;                 /* optional: reads at multiples of this */
};

#define CTLDEV_MAXFILES 4
struct ctldev {
	const char *name;
	const struct ctlfile *files;
	int nfiles;
	/* ctldev.c's */
	struct dirtab tab[CTLDEV_MAXFILES];
	struct dev dev;
};

void ctldev_register(struct ctldev *d);

#endif
