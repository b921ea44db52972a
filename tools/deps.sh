#!/usr/bin/env bash
# tools/deps.sh - install the Debian packages xtx needs to build, test and benchmark.
#
# Usage: tools/deps.sh [--check]
#   Installs whatever is missing (apt-get, as root) and says what it installed.
#   --check   only report what is missing; exit 1 if anything is.
# Environment: XTX_NO_DEPS=1 skips the whole step (for machines managed otherwise).
set -euo pipefail

# build: compiler, BPF toolchain, libraries; test: iproute2, capsh, jq, ethtool, tshark,
# valgrind, curl, python3 (the netns tests' flow placement and UDP receivers), and the
# Debian packaging test: debhelper, dpkg-dev, fakeroot, man-db,
# systemd (systemd-analyze verify of the unit; on any Debian 12 install already);
# bench peers: DPDK (rte_ring, rte_sched; dpdk-dev ships dpdk-testpmd for
# make bench-line) and concurrencykit; plots: gnuplot. And promtool (the metrics test's
# checker) alone, unpacked from Debian's prometheus package into $PROMTOOL without
# installing the package, which would start a Prometheus server on this host.
PKGS=(
  build-essential pkg-config make
  clang llvm
  libxdp-dev libbpf-dev libnuma-dev libelf-dev zlib1g-dev
  bpftool xdp-tools iproute2 libcap2-bin jq ethtool tshark valgrind curl python3
  debhelper dpkg-dev fakeroot man-db systemd
  libdpdk-dev dpdk-dev libck-dev
  gnuplot-nox
)

PROMTOOL=${XTX_PROMTOOL:-/var/cache/xtx-deps/promtool}

[ "${XTX_NO_DEPS:-0}" = 1 ] && exit 0

# promtool from the prometheus .deb: downloaded and unpacked, never installed.
get_promtool() {
  local d
  d=$(mktemp -d)
  chmod 755 "$d"	# apt-get download runs as _apt
  if (cd "$d" && apt-get download -q prometheus >/tmp/xtx-deps.log 2>&1) &&
     dpkg-deb -x "$d"/prometheus_*.deb "$d/x" &&
     install -D -m 755 "$d/x/usr/bin/promtool" "$PROMTOOL"; then
    echo "deps: unpacked promtool into $PROMTOOL" >&2
  else
    echo "deps: could not unpack promtool from the prometheus package; see /tmp/xtx-deps.log" >&2
    rm -rf "$d"
    return 1
  fi
  rm -rf "$d"
}

missing=()
for p in "${PKGS[@]}"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ] && [ -x "$PROMTOOL" ]; then
  exit 0
fi
if [ "${1:-}" = --check ]; then
  [ ${#missing[@]} -eq 0 ] || echo "deps: missing: ${missing[*]}" >&2
  [ -x "$PROMTOOL" ] || echo "deps: missing: $PROMTOOL" >&2
  exit 1
fi
if [ ${#missing[@]} -eq 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "deps: $PROMTOOL missing: run 'sudo tools/deps.sh'" >&2; exit 1; }
  apt-get update -qq >/dev/null 2>&1 || true
  get_promtool
  exit
fi
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing Debian packages: ${missing[*]}" >&2
  echo "deps: run 'sudo tools/deps.sh' (or 'sudo make deps') once, then retry." >&2
  exit 1
fi

echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# An old or empty package list makes apt-get install fail: refresh it first.
apt-get update -qq >/dev/null 2>&1 || apt-get update
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/xtx-deps.log 2>&1; then
  echo "deps: apt-get install failed; last lines of /tmp/xtx-deps.log:" >&2
  tail -20 /tmp/xtx-deps.log >&2
  exit 1
fi
echo "deps: installed ${missing[*]}" >&2
[ -x "$PROMTOOL" ] || get_promtool
