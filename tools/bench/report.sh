#!/usr/bin/env bash
# tools/bench/report.sh NAME TITLE CMD [ARGS...]
#     Runs one benchmark program, which must accept --md FILE and --json FILE, with both in
#     a scratch directory. Only if it exits 0 and left a table and valid JSON do the results
#     move into place: docs/bench/NAME.json (and any other NAME.* it wrote beside the
#     table, such as compare.png), the section docs/bench/NAME.md (title, the exact
#     command and, when make ran it (MAKELEVEL is set), the make target; date, machine,
#     the table, then the hand-written notes from docs/bench/NAME.notes.md under a
#     heading that says so) and docs/BENCHMARKS.md, made from every section. On any
#     failure it exits 1, says why, and docs/BENCHMARKS.md and docs/bench/NAME.* stay
#     byte for byte as they were (tests/net/bench_fail.sh checks it).
# tools/bench/report.sh --regen NAME [TITLE] [--table FILE]
#     Re-renders NAME's section and the page without running anything (after editing the
#     notes, or with FILE as the table, e.g. one redrawn from the kept JSON by
#     `tools/bench/e2e.sh --render`). The command, date and machine, and without --table
#     the table, are read back from the section as it is.
# Re-running on another machine regenerates the page from that machine's numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."

die() { echo "report.sh: $*" >&2; exit 1; }

regen=0 table_in=''
if [ "${1:-}" = --regen ]; then regen=1; shift; fi
[ $# -ge 1 ] || die "usage: report.sh NAME TITLE CMD [ARGS...] | --regen NAME [TITLE] [--table FILE]"
name=$1; shift
[[ $name =~ ^[a-z0-9-]+$ ]] || die "bad NAME '$name'"
sect=docs/bench/$name.md notes=docs/bench/$name.notes.md
# The make target that runs NAME (Makefile): named in the section only when make ran us.
case $name in
  soak) target="make soak" ;;
  *) target="make bench-$name" ;;
esac
via_make=0
[ -n "${MAKELEVEL:-}" ] && via_make=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kept="docs/BENCHMARKS.md and docs/bench/$name.* are left as they were"

if [ $regen = 0 ]; then
  [ $# -ge 2 ] || die "usage: report.sh NAME TITLE CMD [ARGS...]"
  title=$1; shift
  cmd="$*"
  echo "bench: $cmd" >&2
  rc=0
  "$@" --md "$tmp/table.md" --json "$tmp/$name.json" || rc=$?
  [ $rc = 0 ] || die "'$cmd' failed (exit $rc); $kept"
  [ -s "$tmp/table.md" ] || die "'$cmd' wrote no table; $kept"
  [ -s "$tmp/$name.json" ] || die "'$cmd' wrote no JSON; $kept"
  jq . "$tmp/$name.json" >/dev/null 2>&1 || die "'$cmd' wrote invalid JSON; $kept"
  when=$(date -u '+%Y-%m-%d %H:%M UTC')
  cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  machine="$(nproc) CPUs ($cpu), kernel $(uname -r)"
  cp "$tmp/table.md" "$tmp/table.final"
else
  title=''
  if [ $# -ge 1 ] && [ "$1" != --table ]; then title=$1; shift; fi
  if [ "${1:-}" = --table ]; then
    [ $# -ge 2 ] || die "--table needs a FILE"
    table_in=$2; shift 2
  fi
  [ $# = 0 ] || die "unexpected '$*' after --regen $name"
  [ -f "$sect" ] || die "no earlier run of $name ($sect is missing)"
  [ -n "$title" ] || title=$(sed -n '1s/^## //p' "$sect")
  # The header written below: line 3 the command, line 4 the date and machine.
  via_make=0
  cmd=$(sed -n '3s/^Command: `make [^`]*`, which runs `\(.*\)`\.$/\1/p' "$sect")
  if [ -n "$cmd" ]; then via_make=1
  else cmd=$(sed -n '3s/^Command: `\(.*\)`, run by hand\.$/\1/p' "$sect"); fi
  when=$(sed -n '4s/^Measured \(.* UTC\) on .*\.$/\1/p' "$sect")
  machine=$(sed -n '4s/^Measured .* UTC on \(.*\)\.$/\1/p' "$sect")
  [ -n "$cmd" ] && [ -n "$when" ] && [ -n "$machine" ] ||
    die "$sect: cannot read the command, date and machine from lines 3-4; $kept"
  if [ -n "$table_in" ]; then
    [ -s "$table_in" ] || die "$table_in: missing or empty; $kept"
    cp "$table_in" "$tmp/table.final"
  else
    # The table: from line 7 to the notes (their heading, or, in sections written
    # before the heading existed, the notes' text itself), else to the end.
    awk 'NR >= 7' "$sect" > "$tmp/rest"
    n=$(grep -n -m1 '^### Notes' "$tmp/rest" | cut -d: -f1 || true)
    if [ -z "$n" ] && [ -f "$notes" ]; then
      first=$(head -1 "$notes")
      n=$(grep -n -F -x -- "$first" "$tmp/rest" | tail -1 | cut -d: -f1 || true)
    fi
    if [ -n "$n" ]; then head -n $((n - 1)) "$tmp/rest"; else cat "$tmp/rest"; fi |
      sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$tmp/table.final"
    [ -s "$tmp/table.final" ] || die "$sect: no table found; $kept"
  fi
fi

{
  echo "## $title"
  echo
  if [ $via_make = 1 ]; then
    echo "Command: \`$target\`, which runs \`$cmd\`."
  else
    echo "Command: \`$cmd\`, run by hand."
  fi
  echo "Measured $when on $machine."
  echo "Raw figures: \`docs/bench/$name.json\` (one JSON object per line)."
  echo
  cat "$tmp/table.final"
  if [ -f "$notes" ]; then
    echo
    echo "### Notes (written by hand in docs/bench/$name.notes.md, not output of the command above)"
    echo
    cat "$notes"
  fi
} > "$tmp/section.md"

# The page, from every section with this one in its new form.
{
  echo "# xtx benchmarks"
  echo
  echo "Generated by \`tools/bench/report.sh\` from the sections in \`docs/bench/\`; each"
  echo "section names the command that produced its table and keeps that command's raw"
  echo "output beside it (\`docs/bench/NAME.json\`). Every figure in a table is a median of"
  echo "several interleaved runs measured in the same run as its baselines; ± is half the"
  echo "spread (max - min). The notes under a table are written by hand. The machine is a"
  echo "shared 2-core VM: compare ratios, not absolutes."
  # Sections only: a file this script wrote starts with its "## " heading; the other
  # .md files in docs/bench/ are raw tables that notes point to.
  for f in $(printf '%s\n' docs/bench/*.md "$sect" | sort -u); do
    case $f in *.notes.md) continue ;; esac
    [ "$f" = "$sect" ] || head -1 "$f" | grep -q '^## ' || continue
    echo
    if [ "$f" = "$sect" ]; then cat "$tmp/section.md"; else cat "$f"; fi
  done
} > "$tmp/BENCHMARKS.md"

# Everything is ready: move it into place.
if [ $regen = 0 ]; then
  for f in "$tmp/$name".*; do
    mv -f "$f" "docs/bench/${f##*/}"
  done
fi
mv -f "$tmp/section.md" "$sect"
mv -f "$tmp/BENCHMARKS.md" docs/BENCHMARKS.md
echo "bench: wrote $sect and docs/BENCHMARKS.md" >&2
