#!/usr/bin/env bash
# install.sh - `make install` into a scratch prefix gives headers, both libraries, a
# libxtx.pc with which a program outside the tree compiles, links (static and shared) and
# runs the stage, and the tools, their man pages and the systemd unit.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make --no-print-directory -s install PREFIX="$tmp/usr" >/dev/null
for f in include/xtx/mpsc.h include/xtx/sched.h include/xtx/desc.h lib/libxtx.a \
         lib/libxtx.so lib/libxtx.so.0 lib/pkgconfig/libxtx.pc sbin/xtx-shape sbin/xtx-send \
         sbin/xtx-sink sbin/xtx-compare sbin/udp-send sbin/pkt-send sbin/xsk-plain bin/xtx-ctl \
         lib/xtx/testbed share/man/man8/xtx-shape.8 share/man/man1/xtx-ctl.1 \
         share/man/man5/xtx-classes.5 share/man/man5/xtx-rules.5 \
         lib/systemd/system/xtx-shape@.service; do
  [ -e "$tmp/usr/$f" ] || { echo "missing after install: $f"; exit 1; }
done

cat > "$tmp/app.c" <<'C'
#include <stdio.h>
#include <xtx/mpsc.h>
int main(void)
{
	struct xtx_mpsc *s = xtx_mpsc__create(NULL);
	struct xtx_mpsc_prod *p = s ? xtx_mpsc__register(s) : NULL;
	struct xtx_desc d = { .addr = 4096, .len = 60 }, out[4];
	unsigned n;

	if (!p || xtx_mpsc__enqueue(p, &d) != 1)
		return 1;
	n = xtx_mpsc__dequeue_burst(s, out, 4);
	printf("%u %lu\n", n, (unsigned long)out[0].addr);
	xtx_mpsc__unregister(p);
	xtx_mpsc__destroy(s);
	return !(n == 1 && out[0].addr == 4096);
}
C
export PKG_CONFIG_PATH="$tmp/usr/lib/pkgconfig"
cflags=$(pkg-config --cflags libxtx)
# shared
gcc -Wall -Wextra -Werror $cflags "$tmp/app.c" -o "$tmp/app" $(pkg-config --libs libxtx)
LD_LIBRARY_PATH="$tmp/usr/lib" "$tmp/app"
# static
gcc -Wall -Wextra -Werror $cflags "$tmp/app.c" -o "$tmp/app_static" \
  "$tmp/usr/lib/libxtx.a" $(pkg-config --libs --static libxtx | sed 's/-lxtx//')
"$tmp/app_static"
# The shared library exports only what libxtx.map lists.
bad=$(nm -D --defined-only "$tmp/usr/lib/libxtx.so" | awk '{print $3}' | grep -v -E '^(xtx_|__xtx_)' | grep -v '^LIBXTX' || true)
[ -z "$bad" ] || { echo "unexpected exports: $bad"; exit 1; }
echo "install: ok"
