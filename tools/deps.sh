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
# tools/deps.sh sources: the Debian source packages pinned in
# user/debian/sources, each unpacked by apt-get source (Debian's patches
# applied) into build/src/PACKAGE/, whose .pinned names the version; quick
# and silent when all are there already (see the mode below).
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

# The sources mode. apt-get source needs deb-src entries: when apt has none,
# each enabled Debian deb entry of /etc/apt is copied as a deb-src one into
# kprof-deb-src.sources (or .list, as the entries are written), and when a
# pinned version is unknown to apt only that file's indices are updated.
if [ "${1-}" = sources ]; then
	top=$(cd "$(dirname "$0")/.." && pwd)
	pins=$top/user/debian/sources
	dest=$top/build/src
	etc=/etc/apt
	todo=() pkgs=()
	while read -r pkg ver _; do
		case $pkg in ''|'#'*) continue ;; esac
		[ "$(cat "$dest/$pkg/.pinned" 2>/dev/null)" = "$pkg $ver" ] && continue
		todo+=("$pkg=$ver") pkgs+=("$pkg")
	done < "$pins"
	[ ${#todo[@]} -eq 0 ] && exit 0
	if [ "$(id -u)" != 0 ]; then
		echo "deps: build/src/ lacks ${todo[*]}; as root run: tools/deps.sh sources" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	echo "deps: fetching the sources of ${todo[*]} into build/src/" >&2
	command -v dpkg-source >/dev/null 2>&1 ||
		apt-get install -y -qq dpkg-dev >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq dpkg-dev >/dev/null 2>&1; } ||
		{ echo "deps: cannot install dpkg-dev (apt-get source needs it)" >&2; exit 1; }
	ours=
	for f in "$etc/sources.list.d/kprof-deb-src.sources" "$etc/sources.list.d/kprof-deb-src.list"; do
		[ -s "$f" ] && ours=$f
	done
	if [ -z "$ours" ] && ! cat "$etc"/sources.list "$etc"/sources.list.d/*.list \
		"$etc"/sources.list.d/*.sources 2>/dev/null |
		grep -qE '^[[:space:]]*(deb-src[[:space:]]|Types:.*[[:space:]]deb-src([[:space:]]|$))'; then
		# deb822 stanzas: Types: deb becomes deb-src, the rest as it is
		entries=$(cat "$etc"/sources.list.d/*.sources 2>/dev/null | awk '
			BEGIN { RS = ""; FS = "\n" }
			{
				types = ""; body = ""
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^#/) continue
					if ($i ~ /^Types:/) { types = $i " "; continue }
					body = body $i "\n"
				}
				if (types ~ /[ \t]deb[ \t]/ && body ~ /(^|\n)URIs:.*\/debian/ &&
				    body !~ /(^|\n)Enabled:[ \t]*no/)
					printf "Types: deb-src\n%s\n", body
			}')
		if [ -n "$entries" ]; then
			ours=$etc/sources.list.d/kprof-deb-src.sources
		else
			entries=$(cat "$etc"/sources.list "$etc"/sources.list.d/*.list 2>/dev/null |
				sed -n '/\/debian/s/^[[:space:]]*deb\([[:space:]]\)/deb-src\1/p')
			ours=$etc/sources.list.d/kprof-deb-src.list
		fi
		[ -n "$entries" ] || { echo "deps: no Debian deb entry in $etc to copy as deb-src" >&2; exit 1; }
		printf '%s\n' "$entries" > "$ours"
	fi
	for i in "${!pkgs[@]}"; do
		apt-cache showsrc --only-source "${pkgs[$i]}" 2>/dev/null |
			grep -qx "Version: ${todo[$i]#*=}" && continue
		if [ -n "$ours" ]; then
			apt-get update -qq -o Dir::Etc::sourcelist="$ours" -o Dir::Etc::sourceparts=- \
				-o APT::Get::List-Cleanup=0 >/dev/null
		else
			apt-get update -qq >/dev/null
		fi || { echo "deps: apt-get update failed" >&2; exit 1; }
		break
	done
	tmp=$dest/.fetch.$$
	rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get source -qq --only-source "${todo[@]}" >fetch.log 2>&1) ||
		{ cat "$tmp/fetch.log" >&2; echo "deps: apt-get source ${todo[*]} failed" >&2; exit 1; }
	for i in "${!pkgs[@]}"; do
		pkg=${pkgs[$i]}
		dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
		[ -n "$dir" ] || { echo "deps: apt-get source made no $pkg-* directory" >&2; exit 1; }
		rm -rf "${dest:?}/$pkg" && mv "$dir" "$dest/$pkg" || exit 1
		echo "${todo[$i]/=/ }" > "$dest/$pkg/.pinned"
	done
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
