#!/usr/bin/env bash
# deb.sh - the Debian packages: dpkg-buildpackage -b -us -uc on a copy of the tree builds
# libxtx0, libxtx-dev and xtx-tools; unpacked into a scratch root (never installed on
# this machine), every tool there answers --help, every man page renders (man -l) and a
# tool's page holds every line of its --help (one source: they cannot drift), the
# systemd unit reloads with SIGHUP and stops with SIGTERM, and tools/xtx-example builds
# against the unpacked libxtx-dev with pkg-config and runs on the null device (in a
# network namespace of its own: no interface carries anything).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "deb: $*"; exit 1; }

mkdir "$tmp/src"
git ls-files -co --exclude-standard -z | tar -c --null -T - | tar -x -C "$tmp/src"
(cd "$tmp/src" && dpkg-buildpackage -b -us -uc > "$tmp/build.log" 2>&1) ||
  { tail -30 "$tmp/build.log"; fail "dpkg-buildpackage failed"; }
for p in libxtx0 libxtx-dev xtx-tools; do
  deb=$(ls "$tmp"/${p}_*.deb 2>/dev/null) || fail "no $p package built"
  dpkg-deb -x "$deb" "$tmp/root"
  echo "$p: $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture), $(dpkg-deb -c "$deb" | wc -l) entries"
done
r=$tmp/root
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# Each tool: --help exits 0; its page renders and holds every line of the help.
norm() { tr -s ' \t' ' ' | sed 's/^ //; s/ $//; s/‐/-/g' | grep -v '^$'; }
n=0
for t in "$r"/usr/sbin/* "$r"/usr/bin/*; do
  name=$(basename "$t")
  "$t" --help > "$tmp/help" || fail "$name --help exited $?"
  page=$(ls "$r"/usr/share/man/man*/"$name".*) || fail "no man page for $name"
  MANWIDTH=200 man -l "$page" 2>"$tmp/man.err" | col -b | norm > "$tmp/man.txt"
  [ ! -s "$tmp/man.err" ] || fail "man -l $page: $(cat "$tmp/man.err")"
  norm < "$tmp/help" | sed 's/ - / /' | while IFS= read -r line; do
    grep -qF -- "$line" <(sed 's/ - / /' "$tmp/man.txt") ||
      { echo "deb: $name: '$line' of --help is not in its man page"; exit 1; }
  done || exit 1
  n=$((n + 1))
done
echo "$n tools: --help and man page agree"
for p in xtx-classes.5 xtx-rules.5; do
  MANWIDTH=100 man -l "$r/usr/share/man/man5/$p.gz" 2>"$tmp/man.err" | col -b > "$tmp/man.txt"
  [ ! -s "$tmp/man.err" ] && [ "$(wc -l < "$tmp/man.txt")" -gt 10 ] || fail "man -l $p"
done
MANWIDTH=100 man -l "$r/usr/share/man/man5/xtx-classes.5.gz" | col -b > "$tmp/man.txt"
for s in "LEXICAL RULES" "TREE RULES" "CHANGING A RUNNING TREE"; do
  grep -qx "$s" "$tmp/man.txt" || fail "xtx-classes(5) lacks docs/config.md's section $s"
done
echo "xtx-classes(5), xtx-rules(5): render"

unit=$r/usr/lib/systemd/system/xtx-shape@.service
[ -f "$unit" ] || fail "no systemd unit"
grep -qx 'ExecStart=/usr/sbin/xtx-shape --interval 0 $XTX_SHAPE_ARGS' "$unit" &&
  grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit" && grep -qx 'KillSignal=SIGTERM' "$unit" ||
  fail "the unit does not start /usr/sbin/xtx-shape, reload with SIGHUP, stop with SIGTERM"
echo "xtx-shape@.service: ExecStart, ExecReload (SIGHUP), KillSignal (SIGTERM)"
# systemd's own reading of it (an instance, its binary in the scratch root): any
# complaint fails (verify exits 0 on some, a bad signal name for one)
sed "s#/usr/sbin/#$r/usr/sbin/#" "$unit" > "$tmp/xtx-shape@deb.service"
v=$(systemd-analyze verify --man=no "$tmp/xtx-shape@deb.service" 2>&1) && [ -z "$v" ] ||
  fail "systemd-analyze verify: ${v:-exit non-zero}"
echo "xtx-shape@.service: systemd-analyze verify has nothing to say"
[ -x "$r/usr/lib/xtx/testbed" ] || fail "no testbed for xtx-compare"

# The example against the unpacked libxtx-dev.
# (the sysroot prefixes the system's libbpf and libxdp paths too, which do not exist
# there: the compiler and linker then find those in their default places)
export PKG_CONFIG_SYSROOT_DIR=$r PKG_CONFIG_PATH=$r/usr/lib/$ma/pkgconfig
gcc -Wall -Wextra -Werror $(pkg-config --cflags libxtx) tools/xtx-example/main.c \
  -o "$tmp/xtx-example" $(pkg-config --libs libxtx) || fail "xtx-example does not build against libxtx-dev"
ldd "$tmp/xtx-example" > "$tmp/ldd"
grep -q "libxtx.so.0" "$tmp/ldd" || fail "xtx-example is not linked to libxtx.so.0"
out=$(LD_LIBRARY_PATH=$r/usr/lib/$ma unshare -n sh -c \
  '[ "$(readlink /proc/self/ns/net)" != "$(readlink /proc/1/ns/net)" ] || exit 9; exec "$0" null 198.18.0.2 02:00:00:00:00:02 1000' \
  "$tmp/xtx-example") || fail "xtx-example on the null device: exit $?"
echo "xtx-example (against libxtx-dev, on the null device): $(echo "$out" | tail -1)"
echo "deb: ok"
