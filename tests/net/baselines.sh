#!/usr/bin/env bash
# tests/net/baselines.sh - the baseline senders (xsk-plain, udp-send) on a veth pair.
#
# Creates two fresh network namespaces with random names joined by a veth pair (created
# directly inside them, 2 queues each side), 198.18.200.1/24 <-> 198.18.200.2/24, IPv6 off
# (no stray ND/MLD packets), static neighbour entries (no ARP). Then:
#   - xsk-plain --copy --count 100000 and udp-send --threads 2 --count 100000 (and a
#     2-queue, 4-flow, stamped xsk-plain run with an odd count) must each make exactly
#     that many packets arrive on the receiving veth (its rx_packets counter; the veth
#     counts a packet when it hands it to the receiving side), with no rx drops;
#     if build/release/bin/xtx-sink exists it runs (XDP) on the receiving veth during
#     these runs and must count the same, with stamped payloads all in order;
#   - every frame of a few smaller stamped runs is captured (AF_PACKET) and checked:
#     length, MACs, checksums, ports, payload magic/flow/seq/timestamp;
#   - their --json output must parse and carry the documented fields and values;
#   - usage errors exit 2, a missing interface exits 1, --help exits 0.
# One test function per sender run (the counts, and the JSON of that run), per captured
# run (wire_*), and per tool's usage checks. Every sender runs under `timeout` and with
# its own --timeout. The namespaces (and with them the veths) are deleted on any exit.
#
# Exit: 0 pass, 1 fail, 77 skip (not root).
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_xsk_plain_copy test_xsk_plain_2q_stamp test_udp_send_2t test_udp_send_stamp
  test_xsk_plain_count_1 test_udp_send_count_1 test_xsk_plain_auto
  test_xsk_plain_wire_66 test_xsk_plain_wire_64 test_udp_send_wire_66 test_udp_send_wire_60
  test_help test_xsk_plain_usage test_udp_send_usage"
N=100000

if [ "$(id -u)" != 0 ]; then
  echo "skip: needs root (network namespaces, veth, AF_XDP)"
  exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "FAIL: python3 is needed to check the JSON output (make deps)"
  exit 1
fi
for t in xsk-plain udp-send; do
  if [ ! -x "$BIN/$t" ]; then
    echo "FAIL: $BIN/$t is not built (run 'make tools')"
    exit 1
  fi
done

sfx=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
NS_TX=xtxbl-tx-$sfx
NS_RX=xtxbl-rx-$sfx
IF_TX=xbt$sfx          # <= 15 characters
IF_RX=xbr$sfx
MAC_TX=02:00:5e:c6:12:01
MAC_RX=02:00:5e:c6:12:02
IP_TX=198.18.200.1
IP_RX=198.18.200.2
tmp=$TMPD

SINK=build/release/bin/xtx-sink
sink_pid=

cleanup() {
  if [ -n "$sink_pid" ]; then
    kill -INT "$sink_pid" 2>/dev/null
    wait "$sink_pid" 2>/dev/null
  fi
  ip netns del "$NS_TX" 2>/dev/null
  ip netns del "$NS_RX" 2>/dev/null
  rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ok()   { echo "ok    $*"; }

setup() {
  ip netns add "$NS_TX" || return 1
  ip netns add "$NS_RX" || return 1
  for ns in "$NS_TX" "$NS_RX"; do
    # (fails harmlessly where IPv6 is off already)
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
      net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
    ip -n "$ns" link set lo up || return 1
  done
  ip link add "$IF_TX" netns "$NS_TX" numtxqueues 2 numrxqueues 2 address "$MAC_TX" \
    type veth peer name "$IF_RX" netns "$NS_RX" numtxqueues 2 numrxqueues 2 \
    address "$MAC_RX" || return 1
  ip -n "$NS_TX" addr add "$IP_TX/24" dev "$IF_TX" || return 1
  ip -n "$NS_RX" addr add "$IP_RX/24" dev "$IF_RX" || return 1
  ip -n "$NS_TX" link set "$IF_TX" up || return 1
  ip -n "$NS_RX" link set "$IF_RX" up || return 1
  ip -n "$NS_TX" neigh replace "$IP_RX" lladdr "$MAC_RX" dev "$IF_TX" nud permanent || return 1
  ip -n "$NS_RX" neigh replace "$IP_TX" lladdr "$MAC_TX" dev "$IF_RX" nud permanent || return 1
}

rx_stat() { # counter name
  ip netns exec "$NS_RX" cat "/sys/class/net/$IF_RX/statistics/$1"
}

# Wait until rx_packets stops moving (at most 2 s), print it.
rx_settled() {
  local a b i
  a=$(rx_stat rx_packets)
  for i in $(seq 20); do
    sleep 0.1
    b=$(rx_stat rx_packets)
    [ "$a" = "$b" ] && break
    a=$b
  done
  echo "$a"
}

# check_json FILE KEY=VALUE... : FILE holds one JSON object with every documented field;
# each KEY must equal VALUE (compared as JSON: numbers, "strings", true/false).
check_json() {
  local file=$1; shift
  python3 - "$file" "$@" <<'EOF'
import json, sys
path, checks = sys.argv[1], sys.argv[2:]
try:
    lines = [l for l in open(path) if l.strip()]
    if len(lines) != 1:
        raise ValueError("expected 1 line of JSON on stdout, got %d" % len(lines))
    o = json.loads(lines[0])
except Exception as e:
    print("  invalid JSON in %s: %s" % (path, e)); sys.exit(1)
common = {"sent_pkts": int, "sent_bytes": int, "duration_s": (int, float),
          "cpu_ns_per_pkt": (int, float), "pps": (int, float), "complete": bool,
          "interrupted": bool, "size": int, "flows": int}
extra = {"xsk-plain": {"mode": str, "queues": int, "per_queue": list},
         "udp-send": {"errors": int, "threads": int, "per_thread": list}}
bad = []
for k, t in list(common.items()) + list(extra.get(o.get("tool"), {}).items()):
    if k not in o:
        bad.append("missing field %s" % k)
    elif not isinstance(o[k], t) or (t is int and isinstance(o[k], bool)):
        bad.append("field %s has type %s" % (k, type(o[k]).__name__))
if o.get("tool") not in extra:
    bad.append("tool is %r" % o.get("tool"))
for c in checks:
    k, v = c.split("=", 1)
    if o.get(k) != json.loads(v):
        bad.append("%s: expected %s, got %s" % (k, v, json.dumps(o.get(k))))
if not bad and not (o["duration_s"] > 0 and o["cpu_ns_per_pkt"] > 0):
    bad.append("duration_s and cpu_ns_per_pkt must be > 0")
for b in bad:
    print("  " + b)
if not bad:
    print("  %s: %d pkts in %.3f s = %.0f pps, %.0f cpu ns/pkt" % (o["tool"],
          o["sent_pkts"], o["duration_s"], o["pps"], o["cpu_ns_per_pkt"]))
sys.exit(1 if bad else 0)
EOF
}

# sink_start NAME / sink_stop NAME COUNT STAMPED: xtx-sink (XDP, drops matched frames) on
# the receiving veth around one sender run; it must count COUNT frames to ports 9000-9999
# and, if STAMPED is 1, COUNT payloads, all in order, no gaps.
sink_start() {
  rm -f "$tmp/sink.ready"
  "$SINK" --netns "$NS_RX" --dev "$IF_RX" --ports 9000-9999 --json --interval 0 \
    --ready-file "$tmp/sink.ready" >"$tmp/$1.sink" 2>"$tmp/$1.sink.err" &
  sink_pid=$!
  local i
  for i in $(seq 100); do
    [ -e "$tmp/sink.ready" ] && return 0
    kill -0 "$sink_pid" 2>/dev/null || break
    sleep 0.1
  done
  fail "$1: xtx-sink did not attach to $IF_RX"
  sed 's/^/  | /' "$tmp/$1.sink.err"
  kill -INT "$sink_pid" 2>/dev/null
  wait "$sink_pid" 2>/dev/null
  sink_pid=
  return 1
}

sink_stop() {
  local name=$1 count=$2 stamped=$3 rc
  kill -INT "$sink_pid"
  wait "$sink_pid"
  rc=$?
  sink_pid=
  if [ $rc != 0 ]; then
    fail "$name: xtx-sink exited with status $rc"
    sed 's/^/  | /' "$tmp/$name.sink.err"
    return
  fi
  if python3 - "$tmp/$name.sink" "$count" "$stamped" <<'PY'
import json, sys
o, n, stamped = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3] == "1"
want = {"pkts": n}
if stamped:
    want.update(payload_pkts=n, in_order=n, out_of_order=0, gaps=0)
bad = ["%s: expected %s, got %s" % (k, v, o.get(k)) for k, v in want.items() if o.get(k) != v]
for b in bad: print("  " + b)
sys.exit(1 if bad else 0)
PY
  then
    ok "$name: xtx-sink counted exactly $count$([ "$stamped" = 1 ] && echo ", all in order")"
  else
    fail "$name: xtx-sink's counts"
  fi
}

# run_count NAME COUNT SIZE STAMPED JSONCHECKS... -- COMMAND...: run a sender that must
# deliver exactly COUNT packets; checks exit status, receiver counters and JSON, and with
# xtx-sink built, the sink's counts (and order of stamped payloads when STAMPED is 1).
run_count() {
  local name=$1 count=$2 size=$3 stamped=$4; shift 4
  local checks=()
  while [ "$1" != -- ]; do checks+=("$1"); shift; done
  shift
  local before drop_before after drop_after rc use_sink=0
  if [ -x "$SINK" ]; then
    sink_start "$name" && use_sink=1
  fi
  before=$(rx_settled)
  drop_before=$(rx_stat rx_dropped)
  timeout --kill-after=5 60 ip netns exec "$NS_TX" "$@" --json --quiet \
    >"$tmp/$name.json" 2>"$tmp/$name.err"
  rc=$?
  after=$(rx_settled)
  drop_after=$(rx_stat rx_dropped)
  [ $use_sink = 1 ] && sink_stop "$name" "$count" "$stamped"
  if [ $rc != 0 ]; then
    fail "$name: exit status $rc"
    sed 's/^/  | /' "$tmp/$name.err"
    return
  fi
  if [ $((after - before)) != "$count" ]; then
    fail "$name: receiver counted $((after - before)) packets, expected $count"
  else
    ok "$name: receiver counted exactly $count packets"
  fi
  if [ $((drop_after - drop_before)) != 0 ]; then
    fail "$name: receiver dropped $((drop_after - drop_before)) packets"
  fi
  if check_json "$tmp/$name.json" "sent_pkts=$count" "sent_bytes=$((count * size))" \
       "size=$size" "complete=true" "interrupted=false" "${checks[@]}"; then
    ok "$name: JSON valid, fields and values as documented"
  else
    fail "$name: JSON check (output: $(head -c 400 "$tmp/$name.json"))"
  fi
}

# expect_exit NAME STATUS PATTERN COMMAND...: COMMAND exits with STATUS, stderr (or stdout
# for --help) matches PATTERN.
expect_exit() {
  local name=$1 want=$2 pat=$3 rc; shift 3
  timeout 20 ip netns exec "$NS_TX" "$@" >"$tmp/out" 2>&1
  rc=$?
  if [ $rc != "$want" ]; then
    fail "$name: exit status $rc, expected $want"
    sed 's/^/  | /' "$tmp/out"
  elif ! grep -q -- "$pat" "$tmp/out"; then
    fail "$name: output lacks '$pat'"
    sed 's/^/  | /' "$tmp/out"
  else
    ok "$name"
  fi
}

# wire_check NAME COUNT SIZE FLOWS -- COMMAND...: capture on the receiving veth (AF_PACKET,
# in the receiver's namespace) while COMMAND sends COUNT stamped packets, then check every
# frame: length, MACs, IPv4 header and UDP checksums, ports, and the xtx payload (magic,
# flow = port - 9000, per-flow seq 0,1,2,... with no gap, timestamps non-decreasing and set
# when the frame has room for them). For udp-send (NAME udp-send*) a UDP checksum left to
# the device (veth offload) is accepted; xsk-plain's frames must carry complete ones.
wire_check() {
  local name=$1 count=$2 size=$3 flows=$4 partial=0; shift 5
  [[ $name == udp-send* ]] && partial=1
  rm -f "$tmp/ready"
  timeout 20 ip netns exec "$NS_RX" python3 - "$IF_RX" "$count" "$size" "$flows" \
    "$MAC_TX" "$MAC_RX" "$tmp/ready" "$partial" >"$tmp/$name.wire" 2>&1 <<'PY' &
import socket, struct, sys
ifname, count, size, flows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
mac_tx, mac_rx, ready, partial_ok = sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8] == "1"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)           # SO_RCVBUFFORCE
s.bind((ifname, 0))
s.settimeout(5)
open(ready, "w").close()
def csum(b):
    if len(b) % 2: b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return t
frames = []
try:
    while len(frames) < count:
        frames.append(s.recv(65536))
except socket.timeout:
    pass
bad, seq, last_ts, offloaded = [], {}, {}, 0
mac = lambda m: bytes(int(x, 16) for x in m.split(":"))
for i, f in enumerate(frames):
    why = None
    ip, udp = f[14:34], f[34:42]
    ulen = struct.unpack("!H", udp[4:6])[0]
    pay = f[42:34 + ulen]
    dport = struct.unpack("!H", udp[2:4])[0]
    ph = ip[12:20] + struct.pack("!BBH", 0, 17, ulen)
    if len(f) != size: why = "length %d" % len(f)
    elif f[0:6] != mac(mac_rx) or f[6:12] != mac(mac_tx): why = "MACs"
    elif ip[0] != 0x45 or ip[9] != 17 or csum(ip) != 0xffff: why = "IPv4 header/checksum"
    elif udp[6:8] == b"\0\0": why = "UDP checksum 0"
    elif csum(ph + f[34:34 + ulen]) != 0xffff:
        # The kernel's UDP path leaves the checksum to the device (veth: CHECKSUM_PARTIAL):
        # the field then holds the folded pseudo-header sum. AF_XDP frames must be complete.
        if partial_ok and struct.unpack("!H", udp[6:8])[0] == csum(ph): offloaded += 1
        else: why = "UDP checksum"
    if why: pass
    elif not 9000 <= dport < 9000 + flows: why = "dst port %d" % dport
    elif len(pay) >= 16:
        magic, flow, sq = struct.unpack_from("<IIQ", pay)
        if magic != 0x78747831 or flow != dport - 9000: why = "magic/flow"
        elif sq != seq.get(flow, 0):
            why = "flow %d seq %d, expected %d" % (flow, sq, seq.get(flow, 0))
        seq[flow] = sq + 1
        if len(pay) >= 24 and not why:
            ts = struct.unpack_from("<Q", pay, 16)[0]
            if ts == 0 or ts < last_ts.get(flow, 0): why = "timestamp %d" % ts
            last_ts[flow] = ts
        elif len(pay) < 24 and any(pay[16:]): why = "bytes after seq not zero"
    if why: bad.append("frame %d: %s" % (i, why))
print("%d frames, %d flows, %d bad, %d with offloaded UDP checksum" % (len(frames),
      len(seq), len(bad), offloaded))
for b in bad[:5]: print("  " + b)
sys.exit(0 if len(frames) == count and not bad and (size < 58 or len(seq) == flows) else 1)
PY
  local cap=$! i
  for i in $(seq 50); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
  timeout --kill-after=5 60 ip netns exec "$NS_TX" "$@" --quiet >"$tmp/$name.out" 2>&1
  if wait $cap; then
    ok "$name: every frame on the wire checked ($(head -1 "$tmp/$name.wire"))"
  else
    fail "$name: wire check"
    sed 's/^/  | /' "$tmp/$name.wire" "$tmp/$name.out"
  fi
}

if ! setup; then
  echo "FAIL: could not set up the veth pair in namespaces $NS_TX / $NS_RX"
  exit 1
fi
. tools/common/testbed.sh
tb_private "$NS_TX"
tb_private "$NS_RX"

XSK=(./$BIN/xsk-plain --dev "$IF_TX" --dst-ip "$IP_RX" --dst-mac "$MAC_RX" --timeout 20)
UDP=(./$BIN/udp-send --dst-ip "$IP_RX" --timeout 20)

if [ -x "$SINK" ]; then
  echo "note  $SINK found: counting with it too (XDP on the receiving veth)"
else
  echo "note  $SINK not built: counting with the receiving veth's counters only"
fi
test_xsk_plain_copy() {
  run_count xsk-plain-copy $N 64 0 'mode="copy"' 'queues=1' 'flows=1' -- \
    "${XSK[@]}" --copy --count $N
}
test_xsk_plain_2q_stamp() {
  run_count xsk-plain-2q-stamp $((N + 1)) 128 1 'mode="copy"' 'queues=2' 'flows=4' -- \
    "${XSK[@]}" --copy --queues 2 --flows 4 --stamp --size 128 --count $((N + 1))
}
test_udp_send_2t() {
  run_count udp-send-2t $N 64 0 'threads=2' 'flows=2' -- \
    "${UDP[@]}" --threads 2 --count $N
}
# (xtx-sink checks order only of whole 24-byte payloads, so the stamped runs use frames
# of >= 66 bytes here; the 16-byte partial payload of 58..65-byte frames is checked by
# the wire_* functions.)
test_udp_send_stamp() {
  run_count udp-send-stamp $((N + 1)) 66 1 'threads=2' 'flows=5' -- \
    "${UDP[@]}" --threads 2 --flows 5 --stamp --size 66 --count $((N + 1))
}

# Fewer packets than queues/threads: the idle ones must stop at once, not run to the end.
test_xsk_plain_count_1() {
  run_count xsk-plain-count-1 1 64 0 'queues=2' -- "${XSK[@]}" --copy --queues 2 --count 1
}
test_udp_send_count_1() {
  run_count udp-send-count-1 1 64 0 'threads=2' -- "${UDP[@]}" --threads 2 --count 1
}

# Kernel-chosen mode: veth has no zero-copy, so the kernel falls back to copy.
test_xsk_plain_auto() {
  run_count xsk-plain-auto 1000 64 0 'mode="copy"' -- "${XSK[@]}" --count 1000
}

# The frames themselves: stamped payload with and without room for the timestamp.
# --ring 64: a 129-frame UMEM, so each frame is re-stamped ~80 times (incremental checksum).
test_xsk_plain_wire_66() {
  wire_check xsk-plain-wire-66 10000 66 3 -- "${XSK[@]}" --copy --flows 3 --size 66 --stamp \
    --ring 64 --count 10000
}
test_xsk_plain_wire_64() {
  wire_check xsk-plain-wire-64 3000 64 2 -- "${XSK[@]}" --copy --queues 2 --size 64 --stamp \
    --count 3000
}
test_udp_send_wire_66() {
  wire_check udp-send-wire-66 3000 66 3 -- "${UDP[@]}" --threads 2 --flows 3 --size 66 \
    --stamp --count 3000
}
test_udp_send_wire_60() {
  wire_check udp-send-wire-60 3000 60 2 -- "${UDP[@]}" --threads 2 --size 60 --stamp \
    --count 3000
}

test_help() {
  expect_exit "xsk-plain --help" 0 "EXIT STATUS" ./$BIN/xsk-plain --help
  expect_exit "udp-send --help" 0 "EXIT STATUS" ./$BIN/udp-send --help
}
test_xsk_plain_usage() {
  expect_exit "xsk-plain bad option" 2 "unknown option" "${XSK[@]}" --count 1 --bogus
  expect_exit "xsk-plain bad MAC" 2 "is not a MAC address" \
    ./$BIN/xsk-plain --dev "$IF_TX" --dst-ip "$IP_RX" --dst-mac 02:00:5e --count 1
  expect_exit "xsk-plain size below 60" 2 "\-\-size" "${XSK[@]}" --count 1 --size 59
  expect_exit "xsk-plain missing interface" 1 "no such interface" \
    ./$BIN/xsk-plain --dev nonexistent0 --dst-ip "$IP_RX" --dst-mac "$MAC_RX" --count 1
  expect_exit "xsk-plain zero-copy on veth" 1 "zero-copy" "${XSK[@]}" --zero-copy --count 1
  expect_exit "xsk-plain queue beyond device" 1 "queue" "${XSK[@]}" --queues 3 --count 3
}
test_udp_send_usage() {
  expect_exit "udp-send missing --dst-ip" 2 "dst-ip" ./$BIN/udp-send --count 1
  expect_exit "udp-send missing interface" 1 "no such interface" \
    "${UDP[@]}" --dev nonexistent0 --count 1
  expect_exit "udp-send size above MTU" 1 "MTU" "${UDP[@]}" --dev "$IF_TX" --size 1515 --count 1
}

net_run_tests
