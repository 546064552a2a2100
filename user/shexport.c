/* The export builtin: sends files out of the guest as one ustar archive on
 * /dev/eia1 (COM2), which the host's runner unpacks. Every file is read whole first, so a missing
 * one stops the export before a single byte goes out. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"
#include "sh.h"

#define BLOCK 512

struct member {
	char name[PATH_MAX];    /* absolute path without its leading '/' */
	char *data;
	unsigned size;
};

/* Makes path absolute against the cwd and removes ".", ".." and repeated
 * slashes. Writes it without the leading '/'. Returns 0 or -1. */
static int normalize(const char *path, char *out)
{
	char full[2 * PATH_MAX];
	char *p = full, *o = out;

	if (path[0] == '/') {
		snprintf(full, sizeof(full), "%s", path);
	} else {
		char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof(cwd)) < 0)
			return -1;
		snprintf(full, sizeof(full), "%s/%s", cwd, path);
	}
	*o = 0;
	while (*p) {
		char *end;
		int len;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		len = end ? end - p : (int)strlen(p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			/* Back up over the last component, if any. */
			while (o > out && *--o != '/')
				;
			*o = 0;
		} else {
			if ((o - out) + len + 2 > PATH_MAX) {
				errno = ENAMETOOLONG;
				return -1;
			}
			if (o > out)
				*o++ = '/';
			memcpy(o, p, len);
			o += len;
			*o = 0;
		}
		p += len;
	}
	return 0;
}

/* Reads fd to the end into a malloc'd buffer: stat cannot be trusted for
 * the size, a device reports 0. */
static int slurp(int fd, struct member *m)
{
	unsigned cap = 4096;
	int r;

	m->size = 0;
	if ((m->data = malloc(cap)) == 0)
		return -1;
	while ((r = read(fd, m->data + m->size, cap - m->size)) > 0) {
		m->size += r;
		if (m->size == cap) {
			char *bigger = realloc(m->data, cap * 2);
			if (bigger == 0)
				return -1;
			m->data = bigger;
			cap *= 2;
		}
	}
	return r < 0 ? -1 : 0;
}

static void octal(char *field, int width, unsigned v)
{
	/* width - 1 digits and a NUL, as tar writes them. */
	snprintf(field, width, "%0*o", width - 1, v);
}

/* Fills a ustar header for m. Returns -1 if the name cannot be stored. */
static int header(char *h, struct member *m)
{
	int len = strlen(m->name), split = -1;
	unsigned sum = 0;

	memset(h, 0, BLOCK);
	if (len <= 100) {
		memcpy(h, m->name, len);
	} else {
		/* Long names go in two parts, prefix (155) and name (100), cut at a '/'. */
		for (int i = len - 1; i > 0; i--) {
			if (m->name[i] == '/' && i <= 155 && len - i - 1 <= 100) {
				split = i;
				break;
			}
		}
		if (split < 0 || len - split - 1 == 0)
			return -1;
		memcpy(h, m->name + split + 1, len - split - 1);
		memcpy(h + 345, m->name, split);
	}
	octal(h + 100, 8, 0644);        /* mode */
	octal(h + 108, 8, 0);           /* uid */
	octal(h + 116, 8, 0);           /* gid */
	octal(h + 124, 12, m->size);    /* size */
	octal(h + 136, 12, 0);          /* mtime */
	h[156] = '0';                   /* a regular file */
	memcpy(h + 257, "ustar", 6);    /* magic, with its NUL */
	memcpy(h + 263, "00", 2);       /* version */
	memcpy(h + 265, "root", 4);     /* uname */
	memcpy(h + 297, "root", 4);     /* gname */
	/* The checksum is taken with its own field full of spaces. */
	memset(h + 148, ' ', 8);
	for (int i = 0; i < BLOCK; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	h[155] = ' ';
	return 0;
}

int export(int argc, char **argv, int out)
{
	static char zero[2 * BLOCK];
	char hdr[BLOCK];
	struct member *m;
	int nm = argc - 1, fd, ret = 1, failed = 0;
	unsigned total = 0;

	if (nm < 1) {
		fprintf(2, "usage: export FILE...\n");
		return 1;
	}
	if ((m = calloc(nm, sizeof(*m))) == 0) {
		fprintf(2, "export: out of memory\n");
		return 1;
	}
	for (int i = 0; i < nm; i++) {
		const char *arg = argv[i + 1];
		struct stat st;

		if (normalize(arg, m[i].name) < 0) {
			fprintf(2, "export: %s: %s\n", arg, strerror(errno));
			goto out;
		}
		if ((fd = open(arg, O_RDONLY)) < 0) {
			fprintf(2, "export: %s: %s\n", arg, strerror(errno));
			goto out;
		}
		if (fstat(fd, &st) == 0 && st.type == S_IFDIR) {
			fprintf(2, "export: %s: %s\n", arg, strerror(EISDIR));
			close(fd);
			goto out;
		}
		if (slurp(fd, &m[i]) < 0) {
			fprintf(2, "export: %s: %s\n", arg, strerror(errno));
			close(fd);
			goto out;
		}
		close(fd);
		if (header(hdr, &m[i]) < 0) {
			fprintf(2, "export: %s: name too long for ustar\n", arg);
			goto out;
		}
		total += m[i].size;
	}

	if ((fd = open("/dev/eia1", O_WRONLY)) < 0) {
		fprintf(2, "export: /dev/eia1: %s\n", strerror(errno));
		goto out;
	}
	for (int i = 0; i < nm && !failed; i++) {
		unsigned pad = (BLOCK - m[i].size % BLOCK) % BLOCK;

		header(hdr, &m[i]);
		failed = writeall(fd, hdr, BLOCK) < 0 || writeall(fd, m[i].data, m[i].size) < 0 ||
			writeall(fd, zero, pad) < 0;
	}
	/* The end of the archive: two zero blocks. */
	if (failed || writeall(fd, zero, sizeof(zero)) < 0) {
		fprintf(2, "export: /dev/eia1: %s\n", strerror(errno));
		close(fd);
		goto out;
	}
	close(fd);
	fprintf(out, "export: %d file%s, %u bytes\n", nm, nm == 1 ? "" : "s", total);
	ret = 0;
out:
	for (int i = 0; i < nm; i++)
		free(m[i].data);
	free(m);
	return ret;
}
