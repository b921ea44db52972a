#!/usr/bin/env bash
# tools/man/help2man.sh - a tool's man page from its --help text, the one source of both.
#
# Usage: tools/man/help2man.sh BINARY SECTION [ONLY] > PAGE
#   The text's lines in capitals at column 0 (NAME, SYNOPSIS, ...) become sections; the
#   NAME line "tool - what" becomes "tool \- what" for whatis; every other line is kept as
#   it is (no fill: the layout is the help's). ONLY: just that section of the help, as
#   the page's DESCRIPTION (xtx-shape's RULES is the rules file's page), named after
#   ONLY in lower case.
set -euo pipefail
bin=$1 sec=$2 only=${3:-}
name=$(basename "$bin")
"$bin" --help | awk -v name="$name" -v sec="$sec" -v only="$only" '
function esc(s) { gsub(/\\/, "\\e", s); if (s ~ /^[.\047]/) s = "\\&" s; return s }
BEGIN {
  page = only == "" ? name : "xtx-" tolower(only)
  printf ".TH %s %s \"\" \"xtx 0.1.0\" \"xtx manual\"\n", toupper(page), sec
  if (only != "")
    printf ".SH NAME\n%s \\- the %s file of %s\n.SH DESCRIPTION\n.nf\n", page, tolower(only), name
  insec = 0; want = only == ""
}
/^[A-Z][A-Z ]*$/ {
  if (only != "") { want = ($0 == only); next }
  if (open) print ".fi"
  printf ".SH %s\n", $0; cur = $0; open = 0; next
}
{
  if (!want) next
  line = $0; sub(/^    /, "", line)
  if (only == "" && cur == "NAME" && !named && line != "") {
    n = index(line, " - ")
    if (n) { printf "%s \\- %s\n", substr(line, 1, n - 1), esc(substr(line, n + 3)); named = 1; next }
  }
  if (only == "" && !open && line == "") next
  if (only == "" && !open) { print ".nf"; open = 1 }
  print esc(line)
}
END { if (open || only != "") print ".fi" }'
