#!/usr/bin/env bash
# tools/bench/compare_forward.sh - `make bench-compare-forward`: xtx-compare --mode forward
# (xtx-shape beside kernel forwarding + tc htb on the three-namespace testbed, the same
# sender for both, counted at the receiver) twice, the tables and JSON put together:
#   64 bytes    xsk-plain unpaced (offers what it can), docs/examples/forward-64.conf
#               (rates nobody reaches): packets per second at the receiver;
#   1514 bytes  xtx-send paced at 700 Mbit/s, twice the root's 350 Mbit/s,
#               docs/examples/forward-1514.conf (200/100/50 Mbit/s, ceil = rate,
#               overhead 24): each class at the receiver against its rate.
# xtx-compare exits 1 if any measurement failed; this script then stops too, before it
# writes --md or --json.
# Usage: compare_forward.sh [--runs K] [--duration S] --md FILE --json FILE
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/lib.sh
runs=3 dur=3 md='' json=''
bench_opts "runs duration md json" "$@"
[ -n "$md" ] && [ -n "$json" ] || { echo "compare_forward.sh: --md and --json are required" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
X=(build/release/bin/xtx-compare --mode forward --flows 40 --runs "$runs" --duration "$dur")
"${X[@]}" --classes docs/examples/forward-64.conf --size 64 --md $tmp/64.md --json $tmp/64.json
"${X[@]}" --classes docs/examples/forward-1514.conf --size 1514 --rate 700mbit --md $tmp/1514.md --json $tmp/1514.json
{
  echo "64-byte frames, xsk-plain unpaced, rates nobody reaches (docs/examples/forward-64.conf):"
  echo
  cat $tmp/64.md
  echo
  echo "1514-byte frames, xtx-send paced at 700 Mbit/s (docs/examples/forward-1514.conf: root 350 Mbit/s; 200/100/50, ceil = rate):"
  echo
  cat $tmp/1514.md
} > "$md"
jq -c . $tmp/64.json $tmp/1514.json > "$json"
