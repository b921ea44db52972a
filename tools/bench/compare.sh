#!/usr/bin/env bash
# tools/bench/compare.sh - xtx-compare for `make bench-compare` (tools/bench/report.sh):
# runs build/release/bin/xtx-compare on its own veth testbed with the given options, draws
# the plot into docs/bench/compare.png and adds it to the Markdown section.
#
# Usage: compare.sh [xtx-compare options...] --md FILE --json FILE
#   Every option is passed to xtx-compare (see xtx-compare --help); --md and --json are
#   what report.sh adds. Default: xtx-compare's defaults (built-in tree, N = 1,2,4,
#   128-byte frames, 2 s per run, 3 interleaved runs: about 2.5 minutes on 2 CPUs).
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in -h|--help) sed -n 2,9p "$0"; exit 0 ;; esac
md=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --md) md=$2; args+=("$1" "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "compare.sh: needs root (testbed, tc, XDP)" >&2; exit 1; }
mkdir -p docs/bench
png=docs/bench/compare.png
build/release/bin/xtx-compare "${args[@]}" --plot "$png"
if [ -n "$md" ] && [ -f "$png" ]; then
  {
    echo
    echo "![xtx-compare: Mpps against N per path, and per-class rates](bench/compare.png)"
    echo
    echo "Plot: \`$png\`, drawn by the same run (\`--plot\`)."
  } >> "$md"
fi
