#!/usr/bin/env python3
"""Slow clients against `kb serve`: how long a fresh GET /healthz takes while N clients
hold connections and send their requests a byte at a time.

    slow_clients.py [N ...]          default: 70 200

For each N: `kb serve` on the shipped records (RECORDS=dir to change; EXTRA="--threads 4"
adds flags), then N connections from 127.0.0.1, half sending a request header one byte a
second, half a `POST /api/v1/check` with `Content-Length: 100000` and one body byte every
2 s (a client whose connection is closed reconnects and starts again, as an attacker
would). After 3 s, PROBES fresh connections (default 40, 0.25 s apart: past the 10 s request
deadline, so the slow clients are answered 408 and reconnect meanwhile) each GET /healthz;
printed: median and max latency, how many took over 2 s or failed, and the server's
connection figures from /metrics. KB_BASELINE=path/to/another/kb runs that binary too
(e.g. a build from before the event loop). Every socket is on 127.0.0.1.
"""
import http.client
import os
import socket
import sys
import threading
import time

import benchlib as b

PROBES = int(os.environ.get("PROBES", "40"))
RECORDS = os.environ.get("RECORDS", os.path.join(b.REPO, "records"))
EXTRA = os.environ.get("EXTRA", "").split()
HEADER = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
BODY = (b"POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n{")


class Slow:
    """One slow client: `start` first, then one byte per `every` seconds; reconnects
    when the server closes it."""

    def __init__(self, port, start, every):
        self.port, self.start, self.every = port, start, every
        self.sock = None
        self.next = 0.0
        self.reconnects = 0

    def connect(self):
        if self.sock is not None:
            self.sock.close()
            self.reconnects += 1
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        self.sock.setblocking(False)
        self.sock.send(self.start)
        self.next = time.monotonic() + self.every

    def tick(self, now):
        if now < self.next:
            return
        self.next = now + self.every
        try:
            self.sock.send(b" ")
            self.sock.recv(65536, socket.MSG_PEEK)  # anything, or EOF, means an answer
            self.connect()
        except BlockingIOError:
            pass
        except OSError:
            self.connect()


def trickle(clients, stop):
    while not stop.is_set():
        now = time.monotonic()
        for c in clients:
            c.tick(now)
        time.sleep(0.05)


def probe(port):
    """Seconds a fresh connection takes to get /healthz answered; None on failure."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    t0 = time.perf_counter()
    try:
        status, _ = b.get(port, "/healthz", conn=conn)
    except OSError:
        return None
    finally:
        conn.close()
    return time.perf_counter() - t0 if status == 200 else None


def metric_lines(port):
    try:
        _, body = b.get(port, "/metrics")
    except OSError:
        return []
    return [line for line in body.decode().splitlines()
            if line.startswith("kb_http_connection") and not line.endswith(" 0")]


def run(kb, n):
    port = b.free_port()
    server = b.Server([kb, "serve", "--records", RECORDS, "--port", str(port)] + EXTRA, port)
    clients = [Slow(port, HEADER, 1.0) if i % 2 == 0 else Slow(port, BODY, 2.0)
               for i in range(n)]
    try:
        for c in clients:
            c.connect()
        stop = threading.Event()
        t = threading.Thread(target=trickle, args=(clients, stop))
        t.start()
        time.sleep(3)
        times = []
        for _ in range(PROBES):
            times.append(probe(port))
            time.sleep(0.25)
        figures = metric_lines(port)
        stop.set()
        t.join()
    finally:
        for c in clients:
            if c.sock is not None:
                c.sock.close()
        server.stop()
    ok = sorted(x for x in times if x is not None)
    slow = sum(1 for x in times if x is None or x > 2.0)
    print("%-40s N=%-4d healthz median %7.1f ms  max %7.1f ms  >2 s or failed: %d/%d  "
          "reconnects %d" % (os.path.relpath(kb, b.REPO) if kb.startswith(b.REPO) else kb, n,
                             1000 * b.median(ok) if ok else float("nan"),
                             1000 * ok[-1] if ok else float("nan"), slow, len(times),
                             sum(c.reconnects for c in clients)))
    for line in figures:
        print("    " + line)
    sys.stdout.flush()


def main():
    b.need(b.KB)
    sizes = [int(a) for a in sys.argv[1:]] or [70, 200]
    os.makedirs(b.WORK, exist_ok=True)
    binaries = [b.KB] + ([os.environ["KB_BASELINE"]] if os.environ.get("KB_BASELINE") else [])
    for kb in binaries:
        for n in sizes:
            run(kb, n)


if __name__ == "__main__":
    main()
