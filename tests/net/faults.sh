#!/usr/bin/env bash
# faults.sh - xtx-send under faults, on a fresh testbed, one test function each:
#   link_flap      tx0 down for 1.5 s in the middle of a 5 s run at 50 kpps: xtx-send
#                  keeps running and drops nothing (offered = sent); the flap costs at
#                  most the frames the kernel held when the link went down, counted in
#                  tx0's tx_dropped (sent = counted at the sink + that count); every flow's
#                  packets arrive again after the link is back;
#   slow_egress    a 2 Mbit/s class offered far more, twice: with xtx-send's default room
#                  target the producers wait (room waits counted, nothing dropped but the
#                  final purge, memory flat: RSS after 1 s and after 4 s within 2 MiB);
#                  with --target off they run ahead until the frames run out: what is
#                  queued at the end (> 0) is at most the UMEM's frames and --drop purges
#                  it, counted as purged; no frame lost uncounted in either;
#   two_instances  two instances on the same interface and queue: the second one fails
#                  with a clear error, the first is unharmed (its packets all arrive);
#   sigterm        exit 0, every frame accounted, no socket left;
#   sigkill        SIGKILL in the middle of a run, then an immediate restart on the same
#                  queue works;
#   device_gone    the interface disappears (veth deleted) during a run: a clear error,
#                  exit status 1, frames accounted in the summary, nothing left behind;
#   sigstop        SIGSTOP of a process that uses the library: two xtx-send on queues 0
#                  and 1 at 20 kpps each; the first is stopped for 2 s of its 5: the second
#                  keeps its rate (offers and sends >= 95% of 5 s x 20 kpps), the first
#                  resumes; both account for every frame and the sink counts exactly what
#                  each sent.
# (Threads of one process that park or exit without closing: tests/net/producers.sh.)
. "$(dirname "$0")/../lib/net.sh"
# device_gone deletes tx0: it comes after every function that uses this testbed; sigstop
# makes a testbed of its own.
ALL_TESTS="test_link_flap test_slow_egress test_two_instances test_sigterm test_sigkill
  test_device_gone test_sigstop"
net_init --queues 2
# ip netns exec, not in_tx: it execs in place, so $! of "${X[@]}" & is xtx-send's PID
# and the signals below reach it.
tb_private "$TX_NS"
X=(ip netns exec "$TX_NS" $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC")
acct() { # send.json label [gone]: offered == sent + dropped; every frame free or in flight
  local f=$1
  [ "$(jget $f .unaccounted_pkts)" = 0 ] || fail "$2: $(jget $f .unaccounted_pkts) packets unaccounted"
  [ "$(jq '.frames.free + .frames.in_flight == .frames.total' $f)" = true ] ||
    fail "$2: frames do not add up: $(jq -c .frames $f)"
  # Only a vanished device keeps frames: those in its TX ring are never completed.
  [ -n "${3:-}" ] || [ "$(jget $f .frames.in_flight)" = 0 ] || fail "$2: frames still in flight"
}

tx_dropped() { in_tx cat /sys/class/net/$TX_DEV/statistics/tx_dropped; }
ports() { # LO HI: the sink's packets to ports LO..HI
  jq --argjson lo $1 --argjson hi $2 '[.per_port[] | select(.port >= $lo and .port <= $hi) | .pkts] | add // 0' $SINK_JSON
}

# --- link flap ----------------------------------------------------------------------------
test_link_flap() {
  local drop0 pid rc sent got kdrop minseq
  drop0=$(tx_dropped)
  sink_start --ports 9000-9003 || return
  "${X[@]}" --flows 4 --rate 50kpps --duration 5 --json > $TMPD/flap.json 2>$TMPD/flap.err &
  pid=$!
  sleep 1.5; ip -n "$TX_NS" link set "$TX_DEV" down
  sleep 1.5; ip -n "$TX_NS" link set "$TX_DEV" up
  wait $pid; rc=$?
  sink_stop
  sent=$(jget $TMPD/flap.json .sent_pkts) got=$(jget $SINK_JSON .pkts)
  echo "flap: exit $rc, offered $(jget $TMPD/flap.json .offered_pkts) sent $sent dropped $(jget $TMPD/flap.json .dropped_pkts.total) sink $got"
  [ $rc = 0 ] || fail "flap: exit $rc"
  acct $TMPD/flap.json flap
  # What a flap may cost: while tx0 is down the kernel refuses to send (ENETDOWN) and the
  # descriptors stay on the TX ring, so producers see back-pressure and xtx drops nothing;
  # the frames the kernel had taken when the link went down are dropped by tx0 and counted
  # in its tx_dropped (at most the 2048 of the TX ring). Every other frame arrives.
  kdrop=$(( $(tx_dropped) - drop0 ))
  echo "flap: tx0 tx_dropped $kdrop"
  [ "$(jget $TMPD/flap.json .dropped_pkts.total)" = 0 ] || fail "flap: packets dropped by xtx"
  [ "$got" = $((sent - kdrop)) ] ||
    fail "flap: sink counted $got, engine sent $sent, tx0 dropped $kdrop"
  [ "$kdrop" -le 2048 ] || fail "flap: tx0 dropped $kdrop, more than the TX ring holds"
  # Packets resumed after the flap: before it, at most 1.5 s x 12.5 kpps = 18750 per flow
  # could be sent (plus the TX ring's 2048 frames); every flow got at least 0.5 s more.
  minseq=$(jget $SINK_JSON '[.per_port[].next_seq] | min')
  [ "$minseq" -ge 25600 ] 2>/dev/null ||
    fail "flap: no packets after the link came back: next_seq $(jq -c "[.per_port[].next_seq]" $SINK_JSON)"
}

# --- slow egress: back-pressure, drops counted, memory flat --------------------------------
test_slow_egress() {
  local pid rss1 rss2 sd
  printf 'class 1: rate 2mbit\n' > $TMPD/slow.conf
  "${X[@]}" --classes $TMPD/slow.conf --flows 8 --producers 2 --duration 5 --drop --json \
    > $TMPD/slow.json 2>/dev/null &
  pid=$!
  sleep 1; rss1=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
  sleep 3; rss2=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
  wait $pid || fail "slow: xtx-send failed"
  echo "slow egress, room: offered $(jget $TMPD/slow.json .offered_pkts) sent $(jget $TMPD/slow.json .sent_pkts) dropped $(jget $TMPD/slow.json .dropped_pkts.total), room waits $(jget $TMPD/slow.json .room.waits), RSS $rss1 -> $rss2 KiB"
  acct $TMPD/slow.json slow
  # Room: the producers wait for the class, so nothing is dropped but what --drop purges.
  [ "$(jget $TMPD/slow.json .room.waits)" -gt 0 ] 2>/dev/null ||
    fail "slow: the producers never waited for room in an overloaded run"
  [ "$(jget $TMPD/slow.json .dropped_pkts.purged)" = "$(jget $TMPD/slow.json .dropped_pkts.total)" ] ||
    fail "slow: drops other than the final purge: $(jq -c .dropped_pkts $TMPD/slow.json)"
  [ $((rss2 - rss1)) -lt 2048 ] || fail "slow: RSS grew from $rss1 to $rss2 KiB"
  # Without room the producers wait for free frames only, so what is still queued at the
  # end is at most the UMEM's frames; --drop purges exactly that, counted as purged.
  "${X[@]}" --classes $TMPD/slow.conf --flows 8 --producers 2 --duration 2 --drop --json \
    --target off > $TMPD/slow-off.json 2>/dev/null || fail "slow --target off: xtx-send failed"
  echo "slow egress, --target off: offered $(jget $TMPD/slow-off.json .offered_pkts) sent $(jget $TMPD/slow-off.json .sent_pkts) dropped $(jq -c .dropped_pkts $TMPD/slow-off.json)"
  acct $TMPD/slow-off.json slow-off
  sd=$(jget $TMPD/slow-off.json .dropped_pkts.total)
  [ "$sd" -gt 0 ] 2>/dev/null || fail "slow --target off: nothing was queued at the end of an overloaded run"
  [ "$(jget $TMPD/slow-off.json .dropped_pkts.purged)" = "$sd" ] ||
    fail "slow --target off: drops other than the final purge: $(jq -c .dropped_pkts $TMPD/slow-off.json)"
  [ "$sd" -le "$(jget $TMPD/slow-off.json .frames.total)" ] ||
    fail "slow --target off: $sd queued at the end, more than the $(jget $TMPD/slow-off.json .frames.total) frames"
}

# --- two instances on one queue ------------------------------------------------------------
test_two_instances() {
  local pid rc
  sink_start --ports 9000-9000 || return
  "${X[@]}" --rate 20kpps --duration 3 --json > $TMPD/first.json 2>/dev/null &
  pid=$!
  sleep 1
  "${X[@]}" --count 10 2>$TMPD/second.err >/dev/null; rc=$?
  wait $pid || fail "first instance failed"
  sink_stop
  echo "second instance: exit $rc: $(grep -v '^xtx: ' $TMPD/second.err | head -1)"
  [ $rc = 1 ] || fail "second instance exit $rc"
  grep -q "already has an AF_XDP socket" $TMPD/second.err || fail "second instance: unclear error"
  [ "$(jget $SINK_JSON .pkts)" = "$(jget $TMPD/first.json .sent_pkts)" ] ||
    fail "first instance: sink $(jget $SINK_JSON .pkts) of $(jget $TMPD/first.json .sent_pkts)"
}

# --- SIGTERM; SIGKILL, then restart ---------------------------------------------------------
test_sigterm() {
  local pid rc
  "${X[@]}" --duration 10 --json > $TMPD/term.json 2>/dev/null &
  pid=$!
  sleep 1; kill -TERM $pid; wait $pid; rc=$?
  echo "SIGTERM: exit $rc, offered $(jget $TMPD/term.json .offered_pkts) sent $(jget $TMPD/term.json .sent_pkts)"
  [ $rc = 0 ] || fail "SIGTERM: exit $rc"
  acct $TMPD/term.json term
  [ "$(xdp_sockets "$TX_NS")" = 0 ] || fail "SIGTERM: AF_XDP socket left"
}
test_sigkill() {
  local pid
  "${X[@]}" --duration 10 >/dev/null 2>&1 &
  pid=$!
  sleep 1; kill -KILL $pid; wait $pid 2>/dev/null
  "${X[@]}" --count 1000 --json > $TMPD/after.json 2>$TMPD/after.err || { cat $TMPD/after.err; fail "restart after SIGKILL failed"; }
  echo "restart after SIGKILL: sent $(jget $TMPD/after.json .sent_pkts)"
}

# --- the interface disappears --------------------------------------------------------------
test_device_gone() {
  local pid rc left
  "${X[@]}" --rate 20kpps --duration 10 --drain 0.5 --json > $TMPD/gone.json 2>$TMPD/gone.err &
  pid=$!
  sleep 1.5; ip -n "$TX_NS" link del "$TX_DEV"
  wait $pid; rc=$?
  echo "device deleted: exit $rc, $(grep 'disappeared' $TMPD/gone.err | head -1), offered $(jget $TMPD/gone.json .offered_pkts) sent $(jget $TMPD/gone.json .sent_pkts) dropped $(jget $TMPD/gone.json .dropped_pkts.total)"
  [ $rc = 1 ] || fail "device deleted: exit $rc"
  grep -q "disappeared" $TMPD/gone.err || fail "device deleted: no clear error"
  [ "$(jget $TMPD/gone.json .device_gone)" = true ] || fail "summary does not say device_gone"
  acct $TMPD/gone.json gone device-gone
  echo "device deleted: frames $(jq -c .frames $TMPD/gone.json)"
  left=$(xdp_sockets "$TX_NS")
  [ "$left" = 0 ] || fail "$left AF_XDP socket(s) left after the device vanished"
}

# --- SIGSTOP of one process; another on the other queue keeps its rate --------------------
test_sigstop() {
  local pa pb ra rb sa sb
  # A testbed of its own (device_gone deleted tx0); tb_up stops the script if it fails.
  tb_down
  tb_up n --queues 2
  tb_private "$TX_NS"
  X=(ip netns exec "$TX_NS" $BIN/xtx-send --dev "$TX_DEV" --dst-ip "$RX_IP" --dst-mac "$TX_NEXTHOP_MAC")
  sink_start --ports 9000-9103 || return
  "${X[@]}" --first-queue 0 --dst-port 9000 --flows 4 --producers 1 --rate 20kpps --duration 5 \
    --json > $TMPD/stopped.json 2>$TMPD/stopped.err &
  pa=$!
  "${X[@]}" --first-queue 1 --dst-port 9100 --flows 4 --producers 1 --rate 20kpps --duration 5 \
    --json > $TMPD/other.json 2>$TMPD/other.err &
  pb=$!
  sleep 1.5; kill -STOP $pa
  sleep 2; kill -CONT $pa
  wait $pa; ra=$?
  wait $pb; rb=$?
  sink_stop
  sa=$(ports 9000 9003) sb=$(ports 9100 9103)
  echo "SIGSTOP: stopped one offered $(jget $TMPD/stopped.json .offered_pkts) sent $(jget $TMPD/stopped.json .sent_pkts) sink $sa; other offered $(jget $TMPD/other.json .offered_pkts) sent $(jget $TMPD/other.json .sent_pkts) sink $sb"
  [ $ra = 0 ] && [ $rb = 0 ] || fail "SIGSTOP: exit $ra / $rb"
  acct $TMPD/stopped.json stopped
  acct $TMPD/other.json other
  [ "$sa" = "$(jget $TMPD/stopped.json .sent_pkts)" ] || fail "SIGSTOP: the stopped one's frames: sink $sa"
  [ "$sb" = "$(jget $TMPD/other.json .sent_pkts)" ] || fail "SIGSTOP: the other one's frames: sink $sb"
  [ "$(jget $TMPD/other.json .sent_pkts)" -ge 95000 ] || fail "SIGSTOP: the other one lost its rate"
  # The stop was real (2 s of 5 without offering) and the stopped one sent again after it.
  [ "$(jget $TMPD/stopped.json .offered_pkts)" -le 80000 ] || fail "SIGSTOP: the process did not stop"
  [ "$(jget $TMPD/stopped.json .offered_pkts)" -ge 40000 ] || fail "SIGSTOP: the process did not resume"
}

net_run_tests
