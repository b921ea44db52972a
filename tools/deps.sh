#!/usr/bin/env bash
# tools/deps.sh - install the Debian packages xtx needs to build, test and benchmark.
#
# Usage: tools/deps.sh [--check]
#   Installs whatever is missing (apt-get, as root) and says what it installed.
#   --check   only report what is missing; exit 1 if anything is.
# Environment: XTX_NO_DEPS=1 skips the whole step (for machines managed otherwise).
set -euo pipefail

# build: compiler, BPF toolchain, libraries; test: iproute2, capsh, jq, ethtool, tshark,
# valgrind; bench peers: DPDK (rte_ring, rte_sched; dpdk-dev ships dpdk-testpmd for
# make bench-line) and concurrencykit; plots: gnuplot.
PKGS=(
  build-essential pkg-config make
  clang llvm
  libxdp-dev libbpf-dev libnuma-dev libelf-dev zlib1g-dev
  bpftool xdp-tools iproute2 libcap2-bin jq ethtool tshark valgrind
  libdpdk-dev dpdk-dev libck-dev
  gnuplot-nox
)

[ "${XTX_NO_DEPS:-0}" = 1 ] && exit 0

missing=()
for p in "${PKGS[@]}"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "${1:-}" = --check ]; then
  echo "deps: missing: ${missing[*]}" >&2
  exit 1
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
