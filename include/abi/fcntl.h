/* Flags for open() and lseek(), and struct stat / struct dirent, shared by
 * kernel and libc. read() on a directory fd returns whole struct dirent
 * records (a short buffer gets as many as fit; none fit -> -EINVAL). */
#ifndef ABI_FCNTL_H
#define ABI_FCNTL_H

#include <stdint.h>

#define O_RDONLY   0x0000
#define O_WRONLY   0x0001
#define O_RDWR     0x0002
#define O_ACCMODE  0x0003
#define O_CREAT    0x0040
#define O_TRUNC    0x0200
#define O_APPEND   0x0400

#define SEEK_SET   0
#define SEEK_CUR   1
#define SEEK_END   2

#define S_IFILE    1        /* regular file */
#define S_IFDIR    2        /* directory */
#define S_IFDEV    3        /* device file */

#define NAME_MAX   55       /* longest path component */
#define PATH_MAX   256      /* longest path, with its NUL */
#define NOFILE     16       /* open files per process */

struct stat {
	uint32_t type;          /* S_IF* */
	uint32_t size;          /* bytes (a device's current size, or 0) */
	uint32_t ino;           /* file number within its file system */
	uint32_t dev;           /* which file system: 0 initrd, 1 tmp, 2 dev */
};

struct dirent {
	uint32_t ino;
	uint32_t type;          /* S_IF* */
	uint32_t size;
	char     name[NAME_MAX + 1];   /* NUL-terminated */
};

#endif
