/* usertests: files and directories in /tmp, file descriptors, the
 * read-only /bin, and the errors for missing or bad names. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "usertests.h"

static char pattern(unsigned i)
{
	return (char)(i * 7 + i / 251);
}

/* Checks that fd holds n bytes of pattern() from offset off on. */
static void checkdata(int fd, unsigned off, unsigned n, unsigned chunk)
{
	static char buf[4096];
	unsigned done = 0;

	while (done < n) {
		unsigned want = n - done < chunk ? n - done : chunk;
		int r = read(fd, buf, want);
		if (r <= 0)
			fail(__FILE__, __LINE__, "read at %u: %d (%s)", off + done, r, strerror(errno));
		for (int i = 0; i < r; i++)
			if (buf[i] != pattern(off + done + i))
				fail(__FILE__, __LINE__, "byte %u is %d, want %d", off + done + i, buf[i], pattern(off + done + i));
		done += r;
	}
}

static void writedata(int fd, unsigned n, unsigned chunk)
{
	static char buf[4096];

	for (unsigned off = 0; off < n; off += chunk) {
		unsigned len = n - off < chunk ? n - off : chunk;
		for (unsigned i = 0; i < len; i++)
			buf[i] = pattern(off + i);
		if (write(fd, buf, len) != (int)len)
			fail(__FILE__, __LINE__, "write at %u: %s", off, strerror(errno));
	}
}

void t_files(void)
{
	const char *path = "/tmp/ut_file";
	struct stat st;
	char buf[32];
	int fd;

	/* Several blocks, written and read in sizes that do not line up. */
	CHECK((fd = open(path, O_CREAT | O_RDWR | O_TRUNC)) >= 0);
	writedata(fd, 10000, 333);
	CHECK(fstat(fd, &st) == 0 && st.type == S_IFILE && st.size == 10000);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	checkdata(fd, 0, 10000, 777);
	CHECK(read(fd, buf, sizeof(buf)) == 0);                 /* at the end */

	/* lseek, every whence. */
	CHECK(lseek(fd, 5000, SEEK_SET) == 5000);
	checkdata(fd, 5000, 10, 10);
	CHECK(lseek(fd, -10, SEEK_CUR) == 5000);
	CHECK(lseek(fd, 0, SEEK_END) == 10000);
	CHECK(lseek(fd, -100, SEEK_END) == 9900);
	checkdata(fd, 9900, 100, 64);
	CHECK_ERR(lseek(fd, -1, SEEK_SET), EINVAL);
	CHECK_ERR(lseek(fd, 0, 7), EINVAL);

	/* Overwrite across the 4096-byte boundary, then read around it. */
	CHECK(lseek(fd, 4090, SEEK_SET) == 4090);
	CHECK(write(fd, "ZZZZZZZZZZZZ", 12) == 12);
	CHECK(lseek(fd, 4088, SEEK_SET) == 4088);
	CHECK(read(fd, buf, 16) == 16);
	CHECK(buf[0] == pattern(4088) && buf[1] == pattern(4089));
	CHECK(memcmp(buf + 2, "ZZZZZZZZZZZZ", 12) == 0);
	CHECK(buf[14] == pattern(4102) && buf[15] == pattern(4103));
	close(fd);
	CHECK(stat(path, &st) == 0 && st.type == S_IFILE && st.size == 10000);

	/* O_APPEND writes at the end whatever the offset. */
	CHECK((fd = open(path, O_WRONLY | O_APPEND)) >= 0);
	CHECK(write(fd, "tail", 4) == 4);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK(write(fd, "X", 1) == 1);
	close(fd);
	CHECK(stat(path, &st) == 0 && st.size == 10005);
	CHECK((fd = open(path, O_RDONLY)) >= 0);
	CHECK(lseek(fd, 9999, SEEK_SET) == 9999);
	CHECK(read(fd, buf, sizeof(buf)) == 6 && buf[0] == pattern(9999) && memcmp(buf + 1, "tailX", 5) == 0);
	close(fd);

	/* O_TRUNC empties it; without O_CREAT a missing file is ENOENT. */
	CHECK((fd = open(path, O_WRONLY | O_TRUNC)) >= 0);
	CHECK(fstat(fd, &st) == 0 && st.size == 0);
	close(fd);
	CHECK(unlink(path) == 0);
	CHECK_ERR(stat(path, &st), ENOENT);
	CHECK_ERR(open(path, O_RDONLY), ENOENT);
	CHECK_ERR(unlink(path), ENOENT);

	/* Access modes are enforced. */
	CHECK((fd = open(path, O_CREAT | O_WRONLY)) >= 0);
	CHECK_ERR(read(fd, buf, 1), EBADF);
	close(fd);
	CHECK((fd = open(path, O_RDONLY)) >= 0);
	CHECK_ERR(write(fd, "x", 1), EBADF);
	close(fd);
	CHECK(unlink(path) == 0);
}

void t_bigfile(void)
{
	const char *path = "/tmp/ut_big";
	const unsigned size = 300 * 1024;
	unsigned f0 = freepages(), f1;
	struct stat st;
	int fd;

	CHECK((fd = open(path, O_CREAT | O_RDWR | O_TRUNC)) >= 0);
	writedata(fd, size, 4096);
	CHECK(fstat(fd, &st) == 0 && st.size == size);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	checkdata(fd, 0, size, 4000);
	close(fd);
	CHECK(unlink(path) == 0);
	/* The file's pages come back when it goes. */
	f1 = freepages_settled(f0);
	if (f1 + 2 < f0)
		fail(__FILE__, __LINE__, "freepages %u before the file, %u after unlink", f0, f1);
}

/* Looks name up in a directory listing; returns its dirent or 0. */
static struct dirent *lookup(const char *dir, const char *name)
{
	static struct dirent de[64];
	int fd, n, total = 0;

	CHECK((fd = open(dir, O_RDONLY)) >= 0);
	/* Ask for a little less than three records: whole records only. */
	while ((n = read(fd, (char *)de + total, 3 * sizeof(de[0]) - 1)) > 0) {
		if (n % sizeof(de[0]) != 0)
			fail(__FILE__, __LINE__, "read on a directory gave %d bytes, not whole records", n);
		total += n;
		CHECK(total + 3 * sizeof(de[0]) <= sizeof(de));
	}
	CHECK(n == 0);
	close(fd);
	for (int i = 0; i < total / (int)sizeof(de[0]); i++)
		if (strcmp(de[i].name, name) == 0)
			return &de[i];
	return 0;
}

void t_dirs(void)
{
	const char *names[] = { "a", "bb", "ccc" };
	struct dirent *d, one;
	struct stat st;
	int fd;

	CHECK(mkdir("/tmp/ut_dir") == 0);
	CHECK_ERR(mkdir("/tmp/ut_dir"), EEXIST);
	CHECK(stat("/tmp/ut_dir", &st) == 0 && st.type == S_IFDIR);
	CHECK((d = lookup("/tmp", "ut_dir")) != 0 && d->type == S_IFDIR);

	for (int i = 0; i < 3; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/ut_dir/%s", names[i]);
		makefile(path, "12345", i + 1);
	}
	CHECK(mkdir("/tmp/ut_dir/sub") == 0);
	makefile("/tmp/ut_dir/sub/deep", "deep", 4);
	for (int i = 0; i < 3; i++) {
		d = lookup("/tmp/ut_dir", names[i]);
		if (d == 0 || d->type != S_IFILE || d->size != (unsigned)i + 1)
			fail(__FILE__, __LINE__, "listing of %s: %s", names[i], d ? "wrong type or size" : "missing");
	}
	CHECK((d = lookup("/tmp/ut_dir", "sub")) != 0 && d->type == S_IFDIR);
	CHECK(lookup("/tmp/ut_dir", "nosuch") == 0);

	/* A buffer too small for one record. */
	CHECK((fd = open("/tmp/ut_dir", O_RDONLY)) >= 0);
	CHECK_ERR(read(fd, &one, sizeof(one) - 1), EINVAL);
	close(fd);

	/* Paths through the new directories, and the errors on the way. */
	CHECK(stat("/tmp/ut_dir/sub/deep", &st) == 0 && st.size == 4);
	CHECK(stat("/tmp/ut_dir/sub/../a", &st) == 0 && st.size == 1);
	CHECK(stat("/tmp/./ut_dir//bb", &st) == 0 && st.size == 2);
	CHECK_ERR(open("/tmp/ut_dir", O_WRONLY), EISDIR);
	CHECK_ERR(open("/tmp/ut_dir/a/x", O_RDONLY), ENOTDIR);
	CHECK_ERR(open("/tmp/ut_nodir/x", O_CREAT | O_WRONLY), ENOENT);
	CHECK_ERR(mkdir("/tmp/ut_nodir/x"), ENOENT);

	/* A directory with something in it stays. */
	CHECK(unlink("/tmp/ut_dir/sub") == -1);
	CHECK(stat("/tmp/ut_dir/sub/deep", &st) == 0);

	CHECK(unlink("/tmp/ut_dir/sub/deep") == 0);
	CHECK(unlink("/tmp/ut_dir/sub") == 0);
	for (int i = 0; i < 3; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/ut_dir/%s", names[i]);
		CHECK(unlink(path) == 0);
	}
	CHECK(unlink("/tmp/ut_dir") == 0);
	CHECK_ERR(stat("/tmp/ut_dir", &st), ENOENT);
	CHECK(lookup("/tmp", "ut_dir") == 0);
}

void t_cwd(void)
{
	char buf[PATH_MAX];
	struct stat st;
	int fd;

	CHECK(chdir("/") == 0);
	CHECK(getcwd(buf, sizeof(buf)) >= 0 && strcmp(buf, "/") == 0);
	CHECK(mkdir("/tmp/ut_cwd") == 0);
	CHECK(chdir("/tmp/ut_cwd") == 0);
	CHECK(getcwd(buf, sizeof(buf)) == (int)strlen("/tmp/ut_cwd") && strcmp(buf, "/tmp/ut_cwd") == 0);
	/* Relative names resolve against the cwd. */
	CHECK((fd = open("rel", O_CREAT | O_WRONLY)) >= 0);
	close(fd);
	CHECK(stat("/tmp/ut_cwd/rel", &st) == 0);
	CHECK(stat("./rel", &st) == 0);
	CHECK(chdir("..") == 0);
	CHECK(getcwd(buf, sizeof(buf)) >= 0 && strcmp(buf, "/tmp") == 0);
	CHECK(stat("ut_cwd/rel", &st) == 0);
	/* Too small a buffer is an error, not a cut-off name. */
	CHECK(getcwd(buf, 3) == -1);
	CHECK_ERR(chdir("/tmp/ut_cwd/rel"), ENOTDIR);
	CHECK_ERR(chdir("/tmp/ut_nosuch"), ENOENT);
	CHECK(getcwd(buf, sizeof(buf)) >= 0 && strcmp(buf, "/tmp") == 0);
	CHECK(unlink("ut_cwd/rel") == 0);
	CHECK(unlink("/tmp/ut_cwd") == 0);
	CHECK(chdir("/") == 0);
}

void t_dup2(void)
{
	char buf[8];
	int fd, fd2;

	CHECK((fd = open("/tmp/ut_dup", O_CREAT | O_RDWR | O_TRUNC)) >= 0);
	CHECK(dup2(fd, 9) == 9);
	CHECK(dup2(fd, fd) == fd);
	/* The two share one offset. */
	CHECK(write(fd, "ab", 2) == 2);
	CHECK(write(9, "cd", 2) == 2);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK(read(9, buf, sizeof(buf)) == 4 && memcmp(buf, "abcd", 4) == 0);
	/* Closing one leaves the other open. */
	CHECK(close(fd) == 0);
	CHECK(write(9, "e", 1) == 1);
	/* dup2 onto an open fd closes that first. */
	CHECK((fd2 = open("/tmp/ut_dup2", O_CREAT | O_RDWR | O_TRUNC)) >= 0);
	CHECK(dup2(9, fd2) == fd2);
	CHECK(write(fd2, "f", 1) == 1);
	CHECK(close(9) == 0);
	CHECK_ERR(write(9, "x", 1), EBADF);
	CHECK(lseek(fd2, 0, SEEK_SET) == 0);
	CHECK(read(fd2, buf, sizeof(buf)) == 6 && memcmp(buf, "abcdef", 6) == 0);
	close(fd2);

	CHECK_ERR(dup2(99, 5), EBADF);
	CHECK_ERR(dup2(9, 5), EBADF);
	CHECK((fd = open("/tmp/ut_dup", O_RDONLY)) >= 0);
	CHECK_ERR(dup2(fd, NOFILE), EBADF);
	CHECK_ERR(dup2(fd, -1), EBADF);
	close(fd);
	CHECK(unlink("/tmp/ut_dup") == 0);
	CHECK(unlink("/tmp/ut_dup2") == 0);
}

void t_fdmap(void)
{
	char *argv[] = { "echo", "hello", "fdmap", 0 };
	int fd, map[3], n;
	char buf[32];

	/* The child's fd 1 is our file; its 0 and 2 are closed. */
	CHECK((fd = open("/tmp/ut_fdmap", O_CREAT | O_RDWR | O_TRUNC)) >= 0);
	map[0] = -1;
	map[1] = fd;
	map[2] = -1;
	CHECK(reap(spawn("/bin/echo", argv, map)) == 0);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	n = read(fd, buf, sizeof(buf));
	CHECK(n == 12 && memcmp(buf, "hello fdmap\n", 12) == 0);
	close(fd);
	CHECK(unlink("/tmp/ut_fdmap") == 0);

	/* Mapping a descriptor we do not have. */
	map[1] = 12;
	CHECK_ERR(spawn("/bin/echo", argv, map), EBADF);
}

void t_rofs(void)
{
	char name[NAME_MAX + 8], path[PATH_MAX + 32];
	struct stat st;

	CHECK_ERR(open("/bin/ut_new", O_CREAT | O_WRONLY), EROFS);
	CHECK_ERR(open("/bin/echo", O_WRONLY), EROFS);
	CHECK_ERR(open("/bin/echo", O_RDWR), EROFS);
	CHECK_ERR(unlink("/bin/echo"), EROFS);
	CHECK_ERR(mkdir("/bin/ut_dir"), EROFS);
	CHECK(stat("/bin/echo", &st) == 0 && st.type == S_IFILE && st.size > 0);

	CHECK_ERR(open("/tmp/ut_nofile", O_RDONLY), ENOENT);
	CHECK_ERR(open("/nosuchdir/x", O_RDONLY), ENOENT);
	CHECK_ERR(stat("/tmp/ut_nofile", &st), ENOENT);

	/* A component longer than NAME_MAX, and a path longer than PATH_MAX. */
	memset(name, 'n', NAME_MAX + 1);
	name[NAME_MAX + 1] = 0;
	snprintf(path, sizeof(path), "/tmp/%s", name);
	CHECK_ERR(open(path, O_CREAT | O_WRONLY), ENAMETOOLONG);
	memset(path, 0, sizeof(path));
	for (int i = 0; i < PATH_MAX + 8; i += 2)
		memcpy(path + i, "/a", 2);
	CHECK_ERR(stat(path, &st), ENAMETOOLONG);
}

void t_badfd(void)
{
	int fds[NOFILE + 1], n = 0, fd;
	char c;
	struct stat st;

	CHECK_ERR(read(-1, &c, 1), EBADF);
	CHECK_ERR(read(NOFILE, &c, 1), EBADF);
	CHECK_ERR(read(1000000, &c, 1), EBADF);
	CHECK_ERR(write(NOFILE - 1, &c, 1), EBADF);
	CHECK_ERR(close(-1), EBADF);
	CHECK_ERR(close(NOFILE), EBADF);
	CHECK_ERR(close(NOFILE - 1), EBADF);
	CHECK_ERR(fstat(NOFILE - 1, &st), EBADF);
	CHECK_ERR(lseek(NOFILE - 1, 0, SEEK_SET), EBADF);

	/* Open until the table is full: EMFILE, after at most NOFILE. */
	while (n <= NOFILE && (fd = open("/dev/null", O_RDONLY)) >= 0)
		fds[n++] = fd;
	CHECK(n < NOFILE + 1 && errno == EMFILE);
	while (n > 0)
		CHECK(close(fds[--n]) == 0);
	CHECK((fd = open("/dev/null", O_RDONLY)) >= 0);
	close(fd);
}
