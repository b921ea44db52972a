# tools/common/testbed.sh - source it: a testbed for a script, and the checks that keep
# load inside it. Every test, benchmark and script that sends uses these; a step that
# fails stops the script (exit 1), never lets it go on.
#
#   tb_up PREFIX [up options]  a testbed with a fresh name (tools/testbed up --new), owned
#                              by this script ($$), so a crashed run's testbed is removed
#                              by the next up; sets TB and the description (TX_NS ...)
#   tb_down                    remove $TB (for the EXIT trap; no error if none)
#   tb_private NS              exit 1 unless NS is a namespace other than the host's
#   tb_run NS CMD...           tb_private NS, then CMD inside NS (ip netns exec)
# Needs the caller's working directory at the top of the tree.

tb_die() { echo "${0##*/}: $*" >&2; exit 1; }

# The host's namespace: PID 1's, or where PID 1 cannot be read (a sandbox) that of the
# oldest readable ancestor of this script (the session the script was started from).
tb_host_ns() {
	local pid=$$ top=$$ ppid
	readlink /proc/1/ns/net 2>/dev/null && return 0
	while [ "$pid" -gt 1 ]; do
		readlink "/proc/$pid/ns/net" >/dev/null 2>&1 && top=$pid
		ppid=$(awk '{ sub(/.*\) /, ""); print $2 }' "/proc/$pid/stat" 2>/dev/null) || break
		[ -n "$ppid" ] || break
		pid=$ppid
	done
	readlink "/proc/$top/ns/net"
}

tb_private() { # NS
	local self host
	[ -n "${1:-}" ] || tb_die "no namespace given: the testbed was not set up"
	[ -e "/run/netns/$1" ] || tb_die "namespace '$1' does not exist: the testbed was not set up"
	host=$(tb_host_ns) && [ -n "$host" ] || tb_die "cannot read the host's network namespace"
	self=$(ip netns exec "$1" readlink /proc/self/ns/net) ||
		tb_die "cannot enter namespace '$1'"
	[ -n "$self" ] && [ "$self" != "$host" ] ||
		tb_die "namespace '$1' is the host's ($host): refusing to send there"
	[ "$self" != "$(readlink /proc/$$/ns/net)" ] ||
		tb_die "namespace '$1' is this script's own ($self): refusing to send there"
}

tb_run() { # NS CMD...
	tb_private "$1"
	ip netns exec "$@"
}

tb_up() { # PREFIX [tools/testbed up options]
	local out prefix=$1
	shift
	out=$(tools/testbed up --new "$prefix" --owner $$ "$@") ||
		tb_die "tools/testbed up --new $prefix $* failed (see its message above)"
	[ -n "$out" ] || tb_die "tools/testbed up printed no description"
	eval "$out"
	TB=${NAME:-}
	[ -n "$TB" ] || tb_die "tools/testbed up printed no NAME"
	tb_private "$TX_NS"
	tb_private "$RX_NS"
	[ "${THREE:-0}" = 1 ] && tb_private "$FW_NS"
	return 0
}

tb_down() {
	[ -n "${TB:-}" ] && tools/testbed down "$TB" >/dev/null 2>&1
	TB=
}
