#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/net/sink.sh - xtx-sink counts exactly what was sent, per port, and never leaves
# its XDP program behind.
#
# On a fresh testbed (net_init: a name no other run has; removed by the EXIT trap) the sink
# runs on rx0 from the root namespace (--netns) while the tx namespace sends UDP with
# bash's /dev/udp:
# dd writes a file of 24-byte xtx payloads (include/xtx/payload.h) block by block to a
# connected UDP socket, one datagram per block, so the sent count is exact. One test
# function each:
#   duration_drop  --duration, drop: per-port pkts/bytes, totals, sequence order of
#                  in-order flows and of a deliberately reordered one, delay samples, UDP
#                  outside --ports, TCP as ipv4_other, interval lines; the stack saw only
#                  the frames the sink passed (UdpNoPorts); no XDP left on rx0 afterwards,
#                  ready file removed.
#   sigint, sigterm
#                  exit 0, full JSON, detached.
#   sigkill        the program stays attached; the next run removes it and detaches itself.
#   skb_pass       --skb-mode --pass: generic XDP while running, the stack sees every frame.
#   delay_mod      --delay-mod 3 on --ports 40000-40009: each group's ports, step and
#                  delay samples (timestamped frames to 40000 and 40003: group 0, 40004:
#                  group 1; unstamped to 40002: group 2 counts none); the groups' samples
#                  add up to all of them.
# Exit 0 pass, 77 skip (not root, no bash /dev/udp), 1 fail.
# The bash -c scripts below get their values as arguments, hence single quotes:
# shellcheck disable=SC2016
. "$(dirname "$0")/../lib/net.sh"
ALL_TESTS="test_duration_drop test_sigint test_sigterm test_sigkill test_skb_pass test_delay_mod"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces, XDP)"; exit 77; }
command -v ip >/dev/null || { echo "skip: iproute2 not installed"; exit 77; }
bash -c 'exec 3>/dev/udp/127.0.0.1/9' 2>/dev/null || { echo "skip: this bash has no /dev/udp"; exit 77; }
SINK=${XTX_SINK:-build/release/bin/xtx-sink}
[ -x "$SINK" ] || { echo "$SINK is not built; run 'make tools' first"; exit 1; }
net_init
PIDS=()
stop_sinks() { # every sink this test started that still runs: TERM, then KILL after 5 s
	local p i
	for p in "${PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		kill -TERM "$p" 2>/dev/null || true
		for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
	done
}
trap 'stop_sinks; net_cleanup' EXIT
echo "testbed $TB: $TX_NS/$TX_DEV $TX_IP -> $RX_NS/$RX_DEV $RX_IP"
TMP=$TMPD

# --- payload files ---------------------------------------------------------------------
# le VAR VALUE NBYTES: VAR = printf escapes of VALUE, little-endian.
le() {
	local -n out_=$1
	local v=$2 i b
	out_=
	for ((i = 0; i < $3; i++)); do
		printf -v b '\\x%02x' $(((v >> (8 * i)) & 255))
		out_+=$b
	done
}
# gen FILE FLOW TSTAMP SEQ...: one 24-byte struct xtx_payload per SEQ.
gen() {
	local f=$1 flow=$2 ts=$3 magic fl t s q all=
	shift 3
	le magic 0x78747831 4
	le fl "$flow" 4
	le t "$ts" 8
	for s in "$@"; do
		le q "$s" 8
		all+=$magic$fl$q$t
	done
	# shellcheck disable=SC2059	# the format is the data: \xHH escapes
	printf "$all" >"$f"
	[ "$(stat -c %s "$f")" = $((24 * $#)) ] || fail "setup: generated $f has the wrong size"
}
# CLOCK_MONOTONIC in ns, as the kernel's ktime_get() (the clock of bpf_ktime_get_ns).
mono_ns() { awk '/^now at/ { print $3; exit }' /proc/timer_list; }

P0=40000 P1=40001 P2=40002 PR=40003 POUT=50000
N0=200 N1=300 N2=100
FRAME=$((14 + 20 + 8 + 24))		# Ethernet + IPv4 + UDP + payload
gen "$TMP/f0" 0 0 $(seq 0 $((N0 - 1)))
gen "$TMP/f1" 1 0 $(seq 0 $((N1 - 1)))
TS=$(mono_ns 2>/dev/null || echo 0)
[[ $TS =~ ^[0-9]+$ ]] && [ "$TS" -gt 0 ] || fail "setup: cannot read CLOCK_MONOTONIC from /proc/timer_list"
gen "$TMP/f2" 2 "$TS" $(seq 0 $((N2 - 1)))		# timestamped: delay samples
REORDER=(0 1 2 5 3 3 4 9)	# in_order 0 1 2 5 9; late 3 4; duplicate 3; gaps 5 (2), 9 (3)
gen "$TMP/fr" 3 0 "${REORDER[@]}"

# send PORT FILE: every 24-byte block of FILE as one UDP datagram from the tx namespace.
send() {
	tb_run "$TX_NS" bash -c 'exec 3>"/dev/udp/$1/$2" && dd if="$3" bs=24 status=none >&3' \
		_ "$RX_IP" "$1" "$2" || fail "sending $2 to port $1 failed"
}
# send_each PORT FILE: as send, but each datagram from a new socket (see send_raw): for
# --pass, where the receiver's stack answers every datagram with port unreachable.
send_each() {
	tb_run "$TX_NS" bash -c 'n=$(($(stat -c %s "$3") / 24))
		for ((i = 0; i < n; i++)); do
			dd if="$3" bs=24 skip=$i count=1 status=none >"/dev/udp/$1/$2" || exit 1
		done' _ "$RX_IP" "$1" "$2" || fail "sending $2 to port $1 failed"
}
# send_raw PORT COUNT: COUNT 1-byte datagrams, each from a new socket: the receiver's
# stack answers them with ICMP port unreachable, which would make the next send on a
# connected socket fail (ECONNREFUSED) without sending.
send_raw() {
	tb_run "$TX_NS" bash -c 'for ((i = 0; i < $3; i++)); do printf x >"/dev/udp/$1/$2"; done' \
		_ "$RX_IP" "$1" "$2" || fail "sending to port $1 failed"
}
udp_noports() {
	ip netns exec "$RX_NS" nstat -asz UdpNoPorts 2>/dev/null | awk '$1 == "UdpNoPorts" { print $2 }'
}
xdp_on_rx() { ip -n "$RX_NS" link show dev "$RX_DEV" | grep -o 'xdp[a-z]*' | head -1 || true; }

# start_sink TAG ARGS...: runs the sink in the background, waits for its ready file (fails
# and returns 1 if it does not come).
start_sink() {
	local tag=$1 i
	shift
	"$SINK" --netns "$RX_NS" --dev "$RX_DEV" --json --ready-file "$TMP/$tag.ready" "$@" \
		>"$TMP/$tag.json" 2>"$TMP/$tag.err" &
	SPID=$!
	PIDS+=("$SPID")
	for i in $(seq 100); do		# at most 5 s
		[ -e "$TMP/$tag.ready" ] && return 0
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMP/$tag.err" >&2
	fail "$tag: xtx-sink did not become ready"
	return 1
}
# wait_sink TAG [SIGNAL]: signals (if given) and waits at most 10 s; exit status must be 0;
# returns 1 if there is no JSON to check.
wait_sink() {
	local tag=$1 sig=${2:-} i rc=0
	# Frames still queued on rx0 would be missed after the signal; the XDP program
	# normally runs within the sender's write(), but may be deferred to ksoftirqd.
	[ -z "$sig" ] || { sleep 0.3; kill -"$sig" "$SPID"; }
	for i in $(seq 100); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$SPID" 2>/dev/null; then
		fail "$tag: xtx-sink still running 10 s after ${sig:-its duration}"
		kill -KILL "$SPID"; wait "$SPID" 2>/dev/null
		return 1
	fi
	wait "$SPID" || rc=$?
	if [ "$rc" != 0 ]; then
		cat "$TMP/$tag.err" >&2
		fail "$tag: xtx-sink exited with $rc"
	fi
	jq -e . "$TMP/$tag.json" >/dev/null ||
		{ fail "$tag: output is not JSON: $(head -c 300 "$TMP/$tag.json")"; return 1; }
	[ ! -e "$TMP/$tag.ready" ] || fail "$tag: ready file left behind"
	[ -z "$(xdp_on_rx)" ] || fail "$tag: XDP still attached to $RX_DEV after exit: $(ip -n "$RX_NS" link show dev "$RX_DEV")"
}
# expect TAG JQ-EXPR WANT
expect() {
	local got
	got=$(jq -c "$2" "$TMP/$1.json")
	[ "$got" = "$3" ] || {
		if [ "${DUMPED:-}" != "$1" ]; then	# once per run
			DUMPED=$1
			echo "--- $1 output:" >&2; cat "$TMP/$1.json" >&2
			echo "--- veth counters:" >&2
			ip -n "$TX_NS" -s link show dev "$TX_DEV" >&2
			ip -n "$RX_NS" -s link show dev "$RX_DEV" >&2
		fi
		fail "$1: $2: expected $3, got $got"
	}
}
port() { echo ".per_port[] | select(.port == $1)"; }

# --- --duration, drop -------------------------------------------------------------------
test_duration_drop() {
	local nop0 nop1 NR p
	nop0=$(udp_noports)
	start_sink run1 --ports 40000-40009 --duration 2 --interval 0.5 || return
	[ "$(xdp_on_rx)" = xdp ] || fail "run1: no native XDP on $RX_DEV while the sink runs"
	send $P0 "$TMP/f0"
	send $P1 "$TMP/f1"
	send $P2 "$TMP/f2"
	send $PR "$TMP/fr"
	send_raw $POUT 7
	tb_run "$TX_NS" timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/40000"' _ "$RX_IP" 2>/dev/null || true
	wait_sink run1 || return
	NR=${#REORDER[@]}
	expect run1 .mode '"native"'
	expect run1 .pkts $((N0 + N1 + N2 + NR))
	expect run1 .bytes $(((N0 + N1 + N2 + NR) * FRAME))
	expect run1 .payload_pkts $((N0 + N1 + N2 + NR))
	# Every frame was sent after the attach and before the detach.
	expect run1 '.first_ns > 0 and .last_ns > .first_ns and (.arrival_s - (.last_ns - .first_ns) / 1e9 | length) < 2e-9 and .arrival_s < .duration_s' true
	expect run1 '[.per_port[].port]' "[$P0,$P1,$P2,$PR]"
	for p in "$P0:$N0" "$P1:$N1" "$P2:$N2"; do
		expect run1 "$(port "${p%:*}") | [.pkts, .bytes, .in_order, .out_of_order, .gaps, .next_seq]" \
			"[${p#*:},$((${p#*:} * FRAME)),${p#*:},0,0,${p#*:}]"
	done
	expect run1 "$(port $PR) | [.pkts, .in_order, .late, .duplicates, .old, .gaps, .gap_seqs, .next_seq]" \
		"[$NR,5,2,1,0,2,5,10]"
	expect run1 '[.in_order, .out_of_order, .gaps]' "[$((N0 + N1 + N2 + 5)),3,2]"
	expect run1 '.delay_ns | [.samples, .negative]' "[$N2,0]"
	expect run1 '.delay_ns | (.p50 > 0 and .p50 <= .p99 and .p99 <= .p999 and .p999 <= .max and .min <= .p50 and .max < 60000000000)' true
	expect run1 .other.udp_other_port.pkts 7
	expect run1 '.other.ipv4_other.pkts >= 1' true
	expect run1 '.other.truncated.pkts + .other.malformed.pkts + .other.fragment.pkts' 0
	grep -q 'pkt/s' "$TMP/run1.err" || fail "run1: no interval lines on stderr"
	nop1=$(udp_noports)
	# Dropped frames never reach the stack: only the 7 to the unmatched port do.
	[ $((nop1 - nop0)) = 7 ] || fail "run1: UdpNoPorts grew by $((nop1 - nop0)), expected 7"
	echo "run1: $(jq -c '{pkts, bytes, in_order, out_of_order, gaps, delay_ns: {p50: .delay_ns.p50, p99: .delay_ns.p99, samples: .delay_ns.samples}, ipv4_other: .other.ipv4_other.pkts, ipv6_other: .other.ipv6_other.pkts}' "$TMP/run1.json")"
}

# --- SIGINT, SIGTERM -----------------------------------------------------------------------
sig_run() { # SIGNAL
	local sig=$1
	start_sink "sig$sig" --ports $P0 --interval 0 || return
	send $P0 "$TMP/f0"
	wait_sink "sig$sig" "$sig" || return
	expect "sig$sig" '[.pkts, .bytes, .in_order, .out_of_order, .gaps]' "[$N0,$((N0 * FRAME)),$N0,0,0]"
	echo "SIG$sig: $(jq -c '{pkts, duration_s}' "$TMP/sig$sig.json")"
}
test_sigint() { sig_run INT; }
test_sigterm() { sig_run TERM; }

# --- SIGKILL leaves the program; the next run removes it --------------------------------
test_sigkill() {
	start_sink kill9 --interval 0 || return
	kill -KILL "$SPID"
	wait "$SPID" 2>/dev/null || true
	[ -n "$(xdp_on_rx)" ] || fail "kill9: expected the killed sink's program still attached"
	start_sink after9 --ports $P1 --interval 0 || return
	grep -q 'removing a stale xtx_sink program' "$TMP/after9.err" ||
		fail "after9: no message about the stale program: $(cat "$TMP/after9.err")"
	send $P1 "$TMP/f1"
	wait_sink after9 INT || return
	expect after9 '[.pkts, .in_order]' "[$N1,$N1]"
	echo "SIGKILL: stale program removed, next run counted $(jq .pkts "$TMP/after9.json")"
}

# --- --skb-mode --pass ------------------------------------------------------------------
test_skb_pass() {
	local nop0 nop1
	nop0=$(udp_noports)
	start_sink skb --skb-mode --pass --ports $P2 --interval 0 || return
	[ "$(xdp_on_rx)" = xdpgeneric ] || fail "skb: expected generic XDP on $RX_DEV, got '$(xdp_on_rx)'"
	send_each $P2 "$TMP/f2"
	wait_sink skb INT || return
	expect skb '[.mode, .action, .pkts, .bytes, .in_order]' "[\"skb\",\"pass\",$N2,$((N2 * FRAME)),$N2]"
	nop1=$(udp_noports)
	[ $((nop1 - nop0)) = "$N2" ] || fail "skb --pass: UdpNoPorts grew by $((nop1 - nop0)), expected $N2"
	echo "skb/pass: $(jq -c '{mode, action, pkts}' "$TMP/skb.json")"
}

# --- --delay-mod ----------------------------------------------------------------------------
test_delay_mod() {
	start_sink mod --ports 40000-40009 --delay-mod 3 --interval 0 || return
	send 40000 "$TMP/f2"
	send 40003 "$TMP/f2"
	send 40004 "$TMP/f2"
	send 40002 "$TMP/f0"
	wait_sink mod INT || return
	expect mod '[.pkts, .delay_ns.samples]' "[$((3 * N2 + N0)),$((3 * N2))]"
	expect mod '[.delay_groups[] | [.port_lo, .port_hi, .step, .delay_ns.samples]]' \
		"[[40000,40009,3,$((2 * N2))],[40001,40007,3,$N2],[40002,40008,3,0]]"
	expect mod '.delay_groups[2].delay_ns.p50' null
	expect mod '.delay_groups[0].delay_ns | (.p50 > 0 and .p50 <= .p99 and .min <= .p50)' true
	echo "delay-mod: $(jq -c '[.delay_groups[] | {port_lo, step, samples: .delay_ns.samples}]' "$TMP/mod.json")"
}

net_run_tests
