#!/bin/sh
# Makes the table of Linux i386 system-call names from the UAPI header
# the cross compiler brings (asm/unistd_32.h), so the kernel can name any
# call it does not implement: sh kernel/mklinuxnames.sh CC > linux_names.c
set -e
CC=${1:-i686-linux-gnu-gcc}
echo '/* made by kernel/mklinuxnames.sh from asm/unistd_32.h: do not edit */'
echo "#include <stddef.h>"
echo "#include \"linux.h\""
echo
echo 'static const char *const names[LINUX_NSYSCALL] = {'
echo '#include <asm/unistd_32.h>' | $CC -m32 -E -dM - |
	sed -n 's/^#define __NR_\([A-Za-z0-9_]*\) \([0-9][0-9]*\)$/\2 \1/p' | sort -n |
	awk '{ printf "\t[%d] = \"%s\",\n", $1, $2 }'
echo '};'
echo
echo 'const char *linux_syscall_name(uint32_t num)'
echo '{'
echo '	return num < LINUX_NSYSCALL ? names[num] : NULL;'
echo '}'
