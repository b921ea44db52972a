# tests/lib/shape.sh - helpers for the xtx-shape tests (source after net.sh and net_init
# --three): start/stop the shaper in the forwarding namespace, check its frame accounting,
# check that nothing is left attached.
#   shape_start ARGS   xtx-shape in the background, waits until ready (its JSON summary
#                      goes to $TMPD/shape.json, stderr to $TMPD/shape.err)
#   shape_stop [SIG]   signal it (INT by default), wait, fail unless it exited 0
#   check_frames       the last summary: frames all in the pool, rx = fwd + drops,
#                      fwd = sent + scheduler drops
#   nothing_attached W no XDP program and no AF_XDP socket left in the forwarding netns
#   deq_sched          "policy rtprio nice" of the running shaper's first dequeuer thread
#                      (policy 0 SCHED_OTHER, 1 SCHED_FIFO; /proc/PID/task/TID/stat)
SHAPE_PID=
shape_cleanup() {
  [ -n "$SHAPE_PID" ] && kill -INT "$SHAPE_PID" 2>/dev/null && wait "$SHAPE_PID" 2>/dev/null
  [ -n "${FW_NS:-}" ] && ip -n "$FW_NS" link set dev fw0 xdp off 2>/dev/null
  net_cleanup
}
trap shape_cleanup EXIT

shape_start() { # extra xtx-shape args
  rm -f "$TMPD/shape.ready"
  tb_private "$FW_NS"
  $BIN/xtx-shape --netns "$FW_NS" --in "$FW_IN_DEV" --out "$FW_OUT_DEV" --interval 0 --json \
    --ready-file "$TMPD/shape.ready" "$@" > "$TMPD/shape.json" 2> "$TMPD/shape.err" &
  SHAPE_PID=$!
  for _ in $(seq 100); do [ -f "$TMPD/shape.ready" ] && return 0; sleep 0.05; done
  cat "$TMPD/shape.err"; fail "xtx-shape did not start"; return 1
}
deq_sched() {
  local t
  for t in /proc/$SHAPE_PID/task/*; do
    [ "$(cat $t/comm 2>/dev/null)" = xtx-deq/0 ] || continue
    # fields after "pid (comm) ": the 17th is nice, the 38th rt_priority, the 39th policy
    sed 's/^.*) //' $t/stat | awk '{print $39, $38, $17}'
    return
  done
  echo "none"
}
shape_stop() {
  kill -"${1:-INT}" "$SHAPE_PID"; wait "$SHAPE_PID"; local rc=$?; SHAPE_PID=
  [ $rc = 0 ] || { cat "$TMPD/shape.err"; fail "xtx-shape exited $rc"; }
}
# Frame accounting of the last run's summary.
check_frames() {
  local f=$TMPD/shape.json
  [ "$(jget $f .frames.pool)" = "$(jget $f .frames.total)" ] ||
    fail "frames: $(jq -c .frames $f) (not all back in the pool)"
  local rxd txd
  rxd=$(jget $f '[.rx.drops[]] | add // 0') txd=$(jget $f '[.tx.drops[]] | add // 0')
  [ "$(jget $f .rx.pkts)" = "$(( $(jget $f .rx.fwd_pkts) + rxd ))" ] ||
    fail "received $(jget $f .rx.pkts) != forwarded + dropped ($(jq -c .rx $f))"
  [ "$(jget $f .rx.fwd_pkts)" = "$(( $(jget $f .tx.sent_pkts) + txd ))" ] ||
    fail "forwarded $(jget $f .rx.fwd_pkts) != sent + dropped ($(jq -c .tx $f))"
}
# AF_XDP sockets open in a namespace: the kernel's per-namespace count (ss --xdp needs
# xdp_diag, which this kernel may lack, and then shows nothing either way).
nothing_attached() { # what
  local l s
  l=$(ip -n "$FW_NS" -o link show 2>/dev/null | grep -E ' xdp(generic|drv|offload)? |prog/xdp' || true)
  s=$(xdp_sockets "$FW_NS")
  [ -z "$l" ] || fail "$1: XDP program still attached: $l"
  [ "$s" = 0 ] || fail "$1: $s AF_XDP socket(s) still open in $FW_NS"
}

