#!/usr/bin/env python3
"""udp_count.py ADDR FIRST_PORT NPORTS READY_FILE [WANT [LEN]]: a kernel UDP receiver for
the netns tests. Binds ADDR:FIRST_PORT.. (NPORTS sockets, 16 MiB receive buffers), creates
READY_FILE once bound, counts datagrams (of LEN bytes only, if given) until WANT arrived,
1.5 s passed without one after the first, or 20 s in all; prints "COUNT SPAN" (seconds
from the first counted arrival to the last)."""
import select
import socket
import sys
import time

SO_RCVBUFFORCE = 33


def main():
    addr, first, nports, ready = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    want = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    size = int(sys.argv[6]) if len(sys.argv) > 6 else -1
    socks = []
    for p in range(first, first + nports):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 1 << 24)
        s.bind((addr, p))
        s.setblocking(False)
        socks.append(s)
    open(ready, "w").close()
    n, t0, t1 = 0, 0.0, 0.0
    end = time.time() + 20
    while time.time() < end and not (want and n >= want) and not (t1 and time.time() > t1 + 1.5):
        for s in select.select(socks, [], [], 0.2)[0]:
            try:
                while True:
                    got = len(s.recv(65536))	# BlockingIOError once it is empty
                    if size < 0 or got == size:
                        t1 = time.time()
                        t0 = t0 or t1
                        n += 1
            except BlockingIOError:
                pass
    print(n, t1 - t0)


main()
