#!/usr/bin/env bash
# The C install (`scripts/install`) as a user meets it: installs into a temporary prefix,
# checks the layout (cargo-c's for 0.x: liba2a_core.so.0.1.0 with SONAME liba2a_core.so.0.1
# and its two links, the archive, header, both .pc files), that the installed shared library
# is stripped (under 8 MiB) while target/release keeps its line tables, then builds the C
# example outside the repository through pkg-config, once shared and once static, and runs
# both (same output; the static one needs no liba2a_core at run time).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
need() { command -v "$1" >/dev/null 2>&1; }
if ! need cc || ! need pkg-config || ! need readelf; then
  echo "32-install: installing a C compiler, pkg-config and binutils from Debian"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq build-essential pkg-config binutils >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
scripts/install --prefix "$prefix" 2>"$work/build.log" || { cat "$work/build.log"; exit 1; }
lib="$prefix/lib"
fail() { echo "32-install: FAILED: $*" >&2; exit 1; }

# --- layout -------------------------------------------------------------------------------
version=$(cargo pkgid -p a2a-core-ffi | sed 's/.*[#@]//')
minor=${version#0.}; minor=${minor%%.*}
[ -f "$prefix/include/a2a_core.h" ] || fail "no header"
cmp -s include/a2a_core.h "$prefix/include/a2a_core.h" || fail "installed header differs"
real="$lib/liba2a_core.so.$version"
[ -f "$real" ] && [ ! -L "$real" ] || fail "no $real"
[ "$(readlink "$lib/liba2a_core.so.0.$minor")" = "liba2a_core.so.$version" ] || fail "liba2a_core.so.0.$minor link"
[ "$(readlink "$lib/liba2a_core.so")" = "liba2a_core.so.$version" ] || fail "liba2a_core.so link"
[ -f "$lib/liba2a_core.a" ] || fail "no static library"
soname=$(readelf -d "$real" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "liba2a_core.so.0.$minor" ] || fail "soname is '$soname'"
size=$(stat -c %s "$real")
[ "$size" -lt $((8 * 1024 * 1024)) ] || fail "installed shared library is $size bytes (limit 8 MiB)"
readelf -S "$real" | grep -q '\.debug_' && fail "installed shared library still has debug sections"
readelf -S "$lib/liba2a_core.a" 2>/dev/null | grep -q '\.debug_line' && fail "installed archive still has debug sections"
# The build tree keeps the line tables (profiling, backtraces with lines).
readelf -S target/release/liba2a_core.so | grep -q '\.debug_line' || fail "target/release lost its line tables"
echo "32-install: layout ok: $(basename "$real") ($((size / 1024)) KiB, soname $soname), links, archive, header"

# --- a C program of the user's own, through pkg-config ----------------------------------
export PKG_CONFIG_PATH="$lib/pkgconfig"
pkg-config --exists --print-errors a2a_core a2a_core-static
[ "$(pkg-config --modversion a2a_core)" = "$version" ] || fail "pkg-config version"
grep -q "^Libs: \${libdir}/liba2a_core.a " "$lib/pkgconfig/a2a_core-static.pc" || fail "static .pc must name the archive"
app="$work/app"
mkdir -p "$app"
cp examples/c/decode_and_classify.c "$app/main.c"
(
  cd "$app"
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Wextra -Werror -pedantic main.c $(pkg-config --cflags --libs a2a_core) \
    -Wl,-rpath,"$(pkg-config --variable=libdir a2a_core)" -o app-shared
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Wextra -Werror -pedantic main.c $(pkg-config --cflags --libs a2a_core-static) \
    -o app-static
  readelf -d app-shared | grep -q "NEEDED.*\[liba2a_core.so.0.$minor\]" || fail "app-shared does not load the soname"
  readelf -d app-static | grep -q 'NEEDED.*liba2a_core' && fail "app-static still needs the shared library"
  ./app-shared > shared.out
  # Run the static one with the prefix gone: it must need nothing from it.
  mv "$prefix" "$prefix.away"
  ./app-static > static.out
  mv "$prefix.away" "$prefix"
  cmp -s shared.out static.out || { diff -u shared.out static.out; fail "shared and static output differ"; }
  [ -s shared.out ] || fail "the program printed nothing"
)
echo "32-install: a C program built through pkg-config, shared and static, runs ($(wc -l < "$app/shared.out") lines of output)"
echo "32-install: done in $(( $(date +%s) - started ))s"
