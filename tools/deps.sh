#!/usr/bin/env bash
# Checks for the tools the build needs and installs the missing Debian
# packages when run as root; otherwise prints the exact apt-get line.
# Never installs gcc-multilib: it removes gcc-i686-linux-gnu.
#
# tools/deps.sh speedscope: what the export tests check against, the
# speedscope JSON schema of npm's speedscope package, installed under
# build/npm (npm and Debian's python3-jsonschema from apt when missing);
# prints the schema's path. tools/deps.sh go: Debian's golang-go, whose
# `go tool pprof` reads the pprof export; prints go's path.
# tools/deps.sh chromium: Debian's chromium, which the flame graph's
# browser test renders the SVG with (headless); prints chromium's path.
set -u

if [ "${1-}" = chromium ]; then
	if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; }
	fi
	command -v chromium || { echo "deps: no chromium: apt-get install chromium" >&2; exit 1; }
	exit 0
fi

if [ "${1-}" = go ]; then
	if ! command -v go >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null 2>&1
	fi
	command -v go || { echo "deps: no go: apt-get install golang-go" >&2; exit 1; }
	exit 0
fi

if [ "${1-}" = speedscope ]; then
	top=$(cd "$(dirname "$0")/.." && pwd)
	schema=$top/build/npm/node_modules/speedscope/dist/release/file-format-schema.json
	if [ ! -f "$schema" ]; then
		pkgs=()
		command -v npm >/dev/null 2>&1 || pkgs+=(npm)
		python3 -c 'import jsonschema' 2>/dev/null || pkgs+=(python3-jsonschema)
		if [ ${#pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null 2>&1
		fi
		mkdir -p "$top/build/npm"
		(cd "$top/build/npm" && npm install --no-audit --no-fund --silent speedscope@1 >/dev/null 2>&1) ||
			{ echo "deps: npm install speedscope failed" >&2; exit 1; }
	fi
	echo "$schema"
	exit 0
fi

# tool-or-file  package
need=(
	"i686-linux-gnu-gcc       gcc-i686-linux-gnu"
	"i686-linux-gnu-ld        binutils-i686-linux-gnu"
	"nasm                     nasm"
	"qemu-system-i386         qemu-system-x86"
	"grub-mkrescue            grub-common"
	"/usr/lib/grub/i386-pc    grub-pc-bin"
	"xorriso                  xorriso"
	"mformat                  mtools"
	"gcc                      gcc"
	"make                     make"
	"python3                  python3"
	"pkg-config               pkg-config"
	"/usr/include/libelf.h    libelf-dev"
	"/usr/include/elfutils/libdw.h libdw-dev"
	"/usr/include/cmocka.h    libcmocka-dev"
	"/usr/include/capstone/capstone.h libcapstone-dev"
	"/usr/include/protobuf-c/protobuf-c.h libprotobuf-c-dev"
	"protoc-c                 protobuf-c-compiler"
	"/usr/include/zlib.h      zlib1g-dev"
	"gprof                    binutils"
	"/usr/sbin/readprofile    util-linux"
	"addr2line                binutils"
	"cksum                    coreutils"
)

missing=()
for row in "${need[@]}"; do
	set -- $row
	what=$1 pkg=$2
	case $what in
	/*) [ -e "$what" ] && continue ;;
	*)  command -v "$what" >/dev/null 2>&1 && continue ;;
	esac
	case " ${missing[*]-} " in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
done

[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y ${missing[*]}"
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null ||
		{ echo "deps: apt-get failed; run: $line" >&2; exit 1; }
	exit 0
fi
echo "deps: missing tools. Run as root:" >&2
echo "  $line" >&2
exit 1
