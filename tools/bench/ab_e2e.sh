#!/usr/bin/env bash
# ab_e2e.sh - an interleaved A/B of xtx-send end to end (tools/bench/e2e.sh, veth testbed,
# counted at the receiver): ROUNDS rounds of one e2e.sh --runs 1 with BEFORE's xtx-send,
# then one with AFTER's, for the configurations given; one line per figure on stdout:
# "SIDE CONFIG MPPS" (docs/bench/*-ab.txt).
#   tools/bench/ab_e2e.sh BEFORE_XTX_SEND AFTER_XTX_SEND ROUNDS CONFIG...
# e2e.sh makes its own testbed (veth pair in namespaces of its own) and removes it.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BEFORE_XTX_SEND AFTER_XTX_SEND ROUNDS CONFIG..." >&2; exit 2; }
before=$1 after=$2 rounds=$3
shift 3
for b in "$before" "$after"; do
  [ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ): side config Mpps (tools/bench/e2e.sh --runs 1, E2E_CONFIGS=\"$*\", E2E_XTX_SEND each side's)"
for r in $(seq "$rounds"); do
  for side in before after; do
    bin=$before
    [ $side = after ] && bin=$after
    E2E_CONFIGS="$*" E2E_XTX_SEND=$bin tools/bench/e2e.sh --runs 1 --json "$tmp/r.json" \
      > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; echo "$0: e2e.sh failed" >&2; exit 1; }
    jq -r --arg s "$side" '"\($s) \(.config) \(.mpps)"' "$tmp/r.json"
  done
done
