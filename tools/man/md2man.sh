#!/usr/bin/env bash
# tools/man/md2man.sh - a man page from a Markdown document of docs/, its one source.
#
# Usage: tools/man/md2man.sh FILE.md NAME SECTION "WHAT" > PAGE
#   "# title" gives way to NAME \- WHAT; "## x" becomes a section, "### x" a subsection;
#   fenced code stays as it is; table rows become tagged paragraphs (first cell the tag,
#   the others after it), the header's separator dropped; "- item" a bullet; `code` and
#   **bold** lose their marks; a blank line a new paragraph.
set -euo pipefail
md=$1 name=$2 sec=$3 what=$4
awk -v name="$name" -v sec="$sec" -v what="$what" '
function esc(s) { gsub(/\\/, "\\e", s); return s }
function text(s,   t, i) {
  s = esc(s); gsub(/`/, "", s); gsub(/\*\*/, "", s)
  while (match(s, /\[[^]]*\]\([^)]*\)/)) {	# [text](link): the text
    t = substr(s, RSTART, RLENGTH); i = index(t, "]")
    s = substr(s, 1, RSTART - 1) substr(t, 2, i - 2) substr(s, RSTART + RLENGTH)
  }
  gsub(/\001/, "|", s)
  if (s ~ /^[.\047]/) s = "\\&" s
  return s
}
function cells(s,   n, i, a, out) {
  gsub(/\\\|/, "\001", s)	# an escaped | inside a cell
  sub(/^\|/, "", s); sub(/\|[ \t]*$/, "", s)
  n = split(s, a, /[ \t]*\|[ \t]*/)
  sub(/^[ \t]+/, "", a[1])
  printf ".TP\n%s\n", text(a[1])
  out = ""
  for (i = 2; i <= n; i++) if (a[i] != "") out = out (out == "" ? "" : "; ") a[i]
  print text(out)
}
BEGIN {
  printf ".TH %s %s \"\" \"xtx 0.1.0\" \"xtx manual\"\n.SH NAME\n%s \\- %s\n", toupper(name), sec, name, what
}
/^```/ { fence = !fence; print fence ? ".nf" : ".fi"; next }
fence { print esc($0); next }
/^# / { next }
/^## / { sub(/^## /, ""); printf ".SH %s\n", toupper(text($0)); next }
/^### / { sub(/^### /, ""); printf ".SS %s\n", text($0); next }
/^\|[ -|]*\|[ \t]*$/ && /---/ { next }
/^\|/ { cells($0); next }
/^<!--/ { next }
/^- / { sub(/^- /, ""); printf ".IP \\(bu 2\n%s\n", text($0); next }
/^[0-9]+\. / { n = $1; sub(/^[0-9]+\. /, ""); printf ".IP %s 4\n%s\n", n, text($0); next }
/^[ \t]*$/ { print ".PP"; next }
{ sub(/^[ \t]+/, ""); print text($0) }' "$md"
