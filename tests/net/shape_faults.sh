#!/usr/bin/env bash
# shape_faults.sh - xtx-shape under faults, on a fresh three-namespace testbed (tx0 -> fw0
# [xtx-shape --l2] fw1 -> rx0; l2 mode so that every frame goes through the shaper whatever
# the routes and neighbours do while a link is down), one test function each:
#   link_flap      fw1 down for 1.5 s in the middle of a 7 s run at 20 kpps; the shaper
#                  keeps running and receives (or polices in XDP, --police) every frame
#                  offered; it drops (class limit or policing, counted) at most what
#                  arrived while the link was down (1.5 s x 20 kpps,
#                  plus 0.2 s for the timing of the two ip commands) and the sink counts
#                  exactly what it sent, less the frames the kernel held when fw1 went down
#                  (counted in fw1's tx_dropped); stopped with SIGTERM: exit 0, every frame
#                  accounted (received = forwarded + dropped, forwarded = sent + dropped by
#                  the scheduler, all frames back in the pool), nothing left attached; the
#                  lock files of xtx-shape and xtx-sink are owner-only (0700 directories,
#                  0600 files);
#   egress_gone    the egress interface disappears (fw1 deleted) during a run: a clear
#                  error, exit status 1, device_gone in the summary, frames accounted (those
#                  the dead TX ring held never complete: pool + tx = total), no XDP program
#                  and no AF_XDP socket left;
#   least_privilege
#                  capsh drops every other capability; run inside the namespace, as --netns
#                  would need CAP_SYS_ADMIN: with CAP_NET_ADMIN, CAP_BPF, CAP_PERFMON,
#                  CAP_NET_RAW and CAP_IPC_LOCK it forwards every frame; while running it
#                  holds only CAP_NET_ADMIN and CAP_BPF (to detach and read its counters at
#                  exit);
#   missing_caps   without any one of the first four it says which is missing;
#   stale_program  with a stale program on the interface and no CAP_SYS_ADMIN it says why
#                  it cannot tell whether it is ours.
# The last three run on a fresh testbed when egress_gone deleted fw1 (fresh_testbed).
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_link_flap test_egress_gone test_least_privilege test_missing_caps
  test_stale_program"
[ -x $BIN/xtx-shape ] || { echo "missing $BIN/xtx-shape: run make"; exit 1; }
net_init --three --queues 1
. "$(dirname "$0")/../lib/shape.sh"

printf 'class 1: rate 100mbit limit 1000\n' > $TMPD/classes.conf
# No IPv6 on the path: the kernel's router solicitations would be frames that xtx-send
# did not offer, and the flap's counts below are exact.
for ns in "$TX_NS" "$FW_NS"; do
  tb_run "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
    { fail "cannot turn IPv6 off in $ns"; net_run_tests; }	# reports the setup failure
done
# A bump in the wire: tx addresses rx's MAC directly.
xsend() { # extra xtx-send args
  in_tx timeout 60 $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" \
    --dst-mac "$RX_MAC" --flows 4 --producers 1 --rate 20kpps --interval 0 --json "$@"
}
EGRESS_GONE=	# set when egress_gone deleted fw1
fresh_testbed() { # a new testbed if fw1 is gone; tb_up stops the script if it fails
  [ -n "$EGRESS_GONE" ] || return 0
  tb_down
  tb_up n --three --queues 1
  EGRESS_GONE=
}
accounted() { # [gone]
  local f=$TMPD/shape.json rxd txd
  rxd=$(jget $f '[.rx.drops[]] | add // 0') txd=$(jget $f '[.tx.drops[]] | add // 0')
  [ "$(jget $f .rx.pkts)" = $(( $(jget $f .rx.fwd_pkts) + rxd )) ] ||
    fail "received $(jget $f .rx.pkts) != forwarded + dropped ($(jq -c .rx $f))"
  [ "$(jget $f .rx.fwd_pkts)" = $(( $(jget $f .tx.sent_pkts) + txd )) ] ||
    fail "forwarded $(jget $f .rx.fwd_pkts) != sent + dropped ($(jq -c .tx $f))"
  if [ -n "${1:-}" ]; then
    [ "$(jq '.frames.pool + .frames.tx == .frames.total' $f)" = true ] ||
      fail "frames: $(jq -c .frames $f)"
  else
    [ "$(jget $f .frames.pool)" = "$(jget $f .frames.total)" ] ||
      fail "frames: $(jq -c .frames $f) (not all back in the pool)"
  fi
}

# --- egress link flap, then SIGTERM --------------------------------------------------------
fw1_dropped() { tb_run "$FW_NS" cat /sys/class/net/$FW_OUT_DEV/statistics/tx_dropped; }
test_link_flap() {
  local drop0 send_pid held perms f offered got drops kdrop p
  drop0=$(fw1_dropped)
  shape_start --classes $TMPD/classes.conf --l2 || return
  sink_start --ports 9000-9003 || { shape_stop; return; }
  xsend --duration 7 > $TMPD/send.json 2>$TMPD/send.err &
  send_pid=$!
  sleep 1
  # Owner-only lock directories and files (the only files either program creates; no map
  # is pinned and no control socket is made).
  # The lock files our shaper and sink hold (others may be left by killed runs).
  held=$(for p in $SHAPE_PID $SINK_PID; do readlink /proc/$p/fd/* 2>/dev/null; done | grep '^/run/xtx-' | sort -u)
  [ -n "$held" ] || fail "no lock file held by the shaper or the sink"
  perms=$(stat -c '%n %a' /run/xtx-shape /run/xtx-sink $held 2>&1)
  echo "lock files: $(echo $perms)"
  echo "$perms" | awk '{ if ($2 != ($1 ~ /\.lock$/ ? "600" : "700")) bad = 1 } END { exit bad }' ||
    fail "lock files not owner-only: $perms"
  sleep 1; ip -n "$FW_NS" link set "$FW_OUT_DEV" down
  sleep 1.5; ip -n "$FW_NS" link set "$FW_OUT_DEV" up
  wait $send_pid || { cat $TMPD/send.err; fail "xtx-send failed"; }
  sleep 0.5
  kill -0 "$SHAPE_PID" 2>/dev/null || fail "xtx-shape did not survive the flap"
  shape_stop TERM
  sink_stop
  f=$TMPD/shape.json
  offered=$(jget $TMPD/send.json .sent_pkts) got=$(jget $SINK_JSON .pkts)
  echo "flap: offered $offered, shaper rx $(jget $f .rx.pkts) policed $(jget $f .xdp.policed.pkts) sent $(jget $f .tx.sent_pkts) dropped $(jq -c .tx.drops $f), sink $got, fw1 tx_dropped $(( $(fw1_dropped) - drop0 ))"
  accounted
  # dropped by the scheduler, or in XDP by policing (the class full: --police, default)
  drops=$(( $(jget $f '[.tx.drops[]] | add // 0') + $(jget $f .xdp.policed.pkts) ))
  [ "$drops" -gt 0 ] || fail "flap: nothing counted as not sent while the link was down"
  [ "$(( $(jget $f .rx.pkts) + $(jget $f .xdp.policed.pkts) ))" = "$offered" ] ||
    fail "flap: the shaper received $(jget $f .rx.pkts) and policed $(jget $f .xdp.policed.pkts) of $offered offered"
  [ "$drops" -le 34000 ] ||
    fail "flap: $drops dropped, more than arrived while the link was down (1.7 s x 20 kpps)"
  # The frames the kernel held when fw1 went down are dropped by it and counted in fw1's
  # tx_dropped (docs/reliability.md, "What a link flap may cost"); all others arrive.
  kdrop=$(( $(fw1_dropped) - drop0 ))
  [ "$got" = $(( $(jget $f .tx.sent_pkts) - kdrop )) ] ||
    fail "flap: sink $got, shaper sent $(jget $f .tx.sent_pkts), fw1 dropped $kdrop"
  [ "$kdrop" -le 2048 ] || fail "flap: fw1 dropped $kdrop, more than the TX ring holds"
  sleep 0.3
  nothing_attached "after SIGTERM"
}

# --- the egress interface disappears -----------------------------------------------------
test_egress_gone() {
  local send_pid rc
  shape_start --classes $TMPD/classes.conf --l2 || return
  xsend --duration 4 > /dev/null 2>&1 &
  send_pid=$!
  sleep 1.5; ip -n "$FW_NS" link del "$FW_OUT_DEV"
  EGRESS_GONE=1
  for _ in $(seq 100); do kill -0 "$SHAPE_PID" 2>/dev/null || break; sleep 0.1; done
  wait "$SHAPE_PID"; rc=$?; SHAPE_PID=
  wait $send_pid
  echo "egress deleted: exit $rc, $(grep disappeared $TMPD/shape.err | head -1), frames $(jq -c .frames $TMPD/shape.json)"
  [ $rc = 1 ] || fail "egress deleted: exit $rc"
  grep -q "fw1 disappeared" $TMPD/shape.err || fail "egress deleted: no clear error"
  [ "$(jget $TMPD/shape.json .device_gone)" = true ] || fail "summary does not say device_gone"
  accounted gone
  sleep 0.3
  nothing_attached "after the egress vanished"
}

# --- least privilege --------------------------------------------------------------------------
only() { # caps to keep -> capsh --drop list of all others
  local d= c all
  all=$(capsh --print | sed -n 's/^Bounding set =//p' | tr ',' ' ')
  for c in $all; do case " $* " in *" $c "*) ;; *) d+="$c," ;; esac; done
  echo "${d%,}"
}
has_capsh() {
  command -v capsh >/dev/null || { fail "capsh not installed (libcap2-bin; make deps)"; return 1; }
}
shape_caps() { # caps... -- xtx-shape args (in the forwarding namespace, no --netns);
               # exec: run in the background, its PID is xtx-shape's
  local keep=()
  while [ "$1" != -- ]; do keep+=("$1"); shift; done; shift
  tb_private "$FW_NS"
  exec ip netns exec "$FW_NS" capsh --drop="$(only "${keep[@]}")" -- -c \
    "exec $BIN/xtx-shape --in $FW_IN_DEV --out $FW_OUT_DEV --classes $TMPD/classes.conf --l2 --interval 0 --json $*"
}
need=(cap_net_admin cap_bpf cap_perfmon cap_net_raw cap_ipc_lock)
test_least_privilege() {
  local eff prm
  has_capsh || return
  fresh_testbed
  rm -f $TMPD/shape.ready
  shape_caps "${need[@]}" -- --ready-file $TMPD/shape.ready > $TMPD/shape.json 2>$TMPD/shape.err &
  SHAPE_PID=$!
  for _ in $(seq 100); do [ -f $TMPD/shape.ready ] && break; sleep 0.05; done
  [ -f $TMPD/shape.ready ] || { cat $TMPD/shape.err; fail "xtx-shape with ${need[*]} did not start"; }
  eff=$(awk '/^CapEff/ {print $2}' /proc/$SHAPE_PID/status) prm=$(awk '/^CapPrm/ {print $2}' /proc/$SHAPE_PID/status)
  sink_start --ports 9000-9003
  xsend --count 20000 > $TMPD/send.json 2>/dev/null || fail "xtx-send failed"
  sleep 0.3
  shape_stop
  sink_stop
  echo "least privilege: ${need[*]}: shaper sent $(jget $TMPD/shape.json .tx.sent_pkts), sink $(jget $SINK_JSON .pkts); running: CapEff $eff CapPrm $prm"
  [ "$(jget $SINK_JSON .pkts)" = 20000 ] || fail "with ${need[*]}: sink $(jget $SINK_JSON .pkts) of 20000"
  # CAP_NET_ADMIN (12) and CAP_BPF (39) only.
  [ "$eff" = 0000008000001000 ] && [ "$prm" = 0000008000001000 ] ||
    fail "running shaper holds CapEff $eff CapPrm $prm, expected CAP_NET_ADMIN + CAP_BPF"
  sleep 0.3
  nothing_attached "after a least-privilege run"
}
test_missing_caps() {
  local miss keep c
  has_capsh || return
  fresh_testbed
  for miss in cap_net_admin cap_bpf cap_perfmon cap_net_raw; do
    keep=(); for c in "${need[@]}"; do [ $c = $miss ] || keep+=($c); done
    (shape_caps "${keep[@]}" -- --duration 1) > /dev/null 2> $TMPD/e.txt && fail "ran without $miss"
    echo "without $miss: $(grep -v '^xtx:' $TMPD/e.txt | head -1)"
    grep -qi "missing capability $miss" $TMPD/e.txt || fail "without $miss: $(head -2 $TMPD/e.txt)"
  done
}
# A stale program (a root run killed) and no CAP_SYS_ADMIN. ip netns exec execs in place,
# so $! is xtx-shape's PID.
test_stale_program() {
  local p
  has_capsh || return
  fresh_testbed
  tb_private "$FW_NS"
  ip netns exec "$FW_NS" $BIN/xtx-shape --in $FW_IN_DEV --out $FW_OUT_DEV --classes $TMPD/classes.conf \
    --l2 --interval 0 >/dev/null 2>&1 &
  p=$!; sleep 1; kill -KILL $p; wait $p 2>/dev/null
  (shape_caps "${need[@]}" -- --duration 1) > /dev/null 2> $TMPD/e.txt && fail "ran over a program it could not inspect"
  echo "stale program, no CAP_SYS_ADMIN: $(grep -v '^xtx:' $TMPD/e.txt | head -1 | cut -c1-120)..."
  grep -q "needs CAP_SYS_ADMIN" $TMPD/e.txt || fail "stale program: $(head -2 $TMPD/e.txt)"
  shape_start --classes $TMPD/classes.conf --l2	# as root: removes it
  shape_stop
  sleep 0.3
  nothing_attached "after the stale program was removed"
}

net_run_tests
