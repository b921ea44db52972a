#!/usr/bin/env bash
# tools/bench/compare.sh - xtx-compare for `make bench-compare` (tools/bench/report.sh):
# runs build/release/bin/xtx-compare on its own veth testbed with the given options, draws
# the plot into compare.png beside the --md file (report.sh moves it to
# docs/bench/compare.png with the rest, and only if everything succeeded) and adds it to
# the Markdown section. xtx-compare exits 1 if any measurement failed, and so does this.
#
# Usage: compare.sh [xtx-compare options...] --md FILE --json FILE
#   Every option is passed to xtx-compare (see xtx-compare --help); --md and --json are
#   what report.sh adds. Default: xtx-compare's defaults (built-in tree, N = 1,2,4,
#   128-byte frames, 2 s per run, 3 interleaved runs: about 2.5 minutes on 2 CPUs).
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;; esac
md=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --md) md=$2; args+=("$1" "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -n "$md" ] || { echo "compare.sh: --md FILE is required (the plot goes beside it)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "compare.sh: needs root (testbed, tc, XDP)" >&2; exit 1; }
png=$(dirname "$md")/compare.png
rc=0
build/release/bin/xtx-compare "${args[@]}" --plot "$png" || rc=$?
[ $rc = 0 ] || { echo "compare.sh: xtx-compare failed (exit $rc)" >&2; exit 1; }
if [ -f "$png" ]; then
  {
    echo
    echo "![xtx-compare: Mpps against N per path, and per-class rates](bench/compare.png)"
    echo
    echo "Plot: \`docs/bench/compare.png\`, drawn by the same run (\`--plot\`)."
  } >> "$md"
fi
