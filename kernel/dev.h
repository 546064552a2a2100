/* Devices, in the Plan 9 style: each is a file server with a small table
 * of files (a dirtab) and read/write functions that switch on the file's
 * id. devfs (dev.c) puts every registered table under /dev. */
#ifndef DEV_H
#define DEV_H

#include <stdbool.h>
#include <stdint.h>
#include "file.h"

struct dirtab {
	const char *name;
	int id;
	bool stream;            /* true: no offsets (console, serial port) */
};

struct dev {
	const char *name;
	const struct dirtab *tab;
	int ntab;
	int (*open)(int id, struct file *f);                    /* optional */
	void (*close)(int id, struct file *f);                  /* optional */
	int (*read)(int id, struct file *f, void *buf, uint32_t n, uint32_t off);
	int (*write)(int id, struct file *f, const void *buf, uint32_t n, uint32_t off);
	uint32_t (*size)(int id, struct file *f);               /* optional */
};

void devfs_register(const struct dev *d);

/* Text or binary files that are generated whole at open: the snapshot is
 * kept with the open file, so every read of it is consistent. */
int snap_open(struct file *f, const void *data, uint32_t n);
int snap_write(struct file *f, uint32_t off, const void *data, uint32_t n);   /* 0 or -ENOMEM */
int snap_read(struct file *f, void *buf, uint32_t n, uint32_t off);
void snap_close(struct file *f);
uint32_t snap_size(struct file *f);

/* A text builder for snapshots: text_add appends with ksnprintf formatting
 * to paged storage that grows as needed (to PAGEBUF_MAX bytes); text_finish
 * makes it the open file's snapshot. The first failure is kept and
 * text_finish returns it (-ENOMEM, -ENOSPC past PAGEBUF_MAX, -E2BIG for one
 * add of a page or more), so a device's text is whole or its open fails,
 * never cut short. */
struct pagebuf;
struct textbuf {
	struct pagebuf *pb;
	uint32_t len;
	int err;                /* 0, or the first -errno */
};
bool text_begin(struct textbuf *t);                     /* false: no memory */
void text_add(struct textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int text_finish(struct textbuf *t, struct file *f);    /* 0, or t's error (all freed) */
/* or the text goes elsewhere, then text_free: */
int text_write(struct textbuf *t, struct file *f);     /* into a file: 0 or -errno */
void text_print(struct textbuf *t);                     /* on the console */
void text_free(struct textbuf *t);

void devcons_init(void);        /* devcons.c: cons, null, eia1 */
void sysstat_init(void);        /* sysstat.c: sysstat */

#endif
