#!/usr/bin/env bash
# ab_sched.sh - an interleaved A/B of bench_sched between two builds: rounds of "before"
# then "after", each one bench_sched run with the same arguments, raw output on stdout
# under '## before, round N' / '## after, round N' headers (docs/bench/*-ab.txt).
#   tools/bench/ab_sched.sh BEFORE_BIN AFTER_BIN ROUNDS -- BENCH_SCHED_ARGS...
# Example (a worktree of the commit before, built with make):
#   tools/bench/ab_sched.sh /tmp/ab-before/build/release/bin/bench_sched \
#     build/release/bin/bench_sched 3 -- --runs 3 --cpu-time --impl xtx --classes 1,64
# No network load: bench_sched runs the scheduler in memory.
set -euo pipefail
[ $# -ge 4 ] && [ "$4" = -- ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN ROUNDS -- ARGS..." >&2; exit 2; }
before=$1 after=$2 rounds=$3
shift 4
for b in "$before" "$after"; do
  [ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), alternating; each: bench_sched $*"
for r in $(seq "$rounds"); do
  for side in before after; do
    bin=$before
    [ $side = after ] && bin=$after
    echo "## $side, round $r"
    "$bin" "$@" 2>/dev/null | awk '/^xtx|^rte|^impl/ && !/^impl/'
  done
done
