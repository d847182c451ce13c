#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Idle mTLS clients for the API's role tests: each completes a TLS handshake with
a client certificate and then sends nothing (or, with --request-every-ms, a GET
/v1/health now and then on the same connection, reading nothing back; with
--request-once, one keep-alive GET /v1/health right after the handshake, then
nothing: a monitoring client that keeps its connection for its next scrape).

  tls_idle.py --connect HOST:PORT --ca CA --cert CRT --key KEY --conns N --hold-s S
              [--bind ADDR] [--reconnect] [--request-every-ms MS] [--request-once] [--ready FILE]

Opens N connections (from ADDR) one after the other (each handshake completed; FILE is created
once all are open) and holds them for S seconds, watching which ones the server
closes; with --reconnect a connection the server closed is opened again at once,
so N stay open as far as the server lets them. Prints one JSON object:
{"opened": handshakes completed, "failed": handshakes that failed,
 "closed_by_server": connections the server closed, "open_at_end": connections
 still open after S seconds, "answers": {status: count} of the answers read}.
"""
import argparse
import json
import select
import socket
import ssl
import time

REQUEST = b"GET /v1/health HTTP/1.1\r\nHost: agent\r\n\r\n"


def connect(host, port, ctx, bind):
    raw = socket.create_connection((host, port), timeout=10, source_address=(bind, 0) if bind else None)
    s = ctx.wrap_socket(raw, server_hostname=host)
    s.setblocking(False)
    return s


def closed(s, answers=None):
    """True when the server closed s (EOF or reset); the status of each answer it sent is counted in answers."""
    try:
        while True:
            data = s.recv(65536)
            if data == b"":
                return True
            if answers is not None:
                for line in data.split(b"\r\n"):
                    if line.startswith(b"HTTP/1.1 "):
                        code = line.split()[1].decode()
                        answers[code] = answers.get(code, 0) + 1
    except ssl.SSLWantReadError:
        return False
    except (ssl.SSLError, OSError):
        return True


class Pool:
    def __init__(self, a):
        self.host, port = a.connect.rsplit(":", 1)
        self.port = int(port)
        self.ctx = ssl.create_default_context(cafile=a.ca)
        self.ctx.load_cert_chain(a.cert, a.key)
        self.bind = a.bind
        self.once = a.request_once
        self.conns, self.opened, self.failed, self.gone, self.answers = [], 0, 0, 0, {}

    def open_one(self):
        try:
            s = connect(self.host, self.port, self.ctx, self.bind)
            if self.once:
                s.send(REQUEST)
            self.conns.append(s)
            self.opened += 1
        except (ssl.SSLError, OSError):
            self.failed += 1

    def watch(self, timeout):
        ready, _, _ = select.select(self.conns, [], [], timeout) if self.conns else ([], [], time.sleep(timeout))
        for s in ready:
            if closed(s, self.answers):
                self.conns.remove(s)
                s.close()
                self.gone += 1

    def request(self):
        for s in self.conns:
            try:
                s.send(REQUEST)
            except (ssl.SSLError, OSError):
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--connect", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--conns", type=int, default=160)
    ap.add_argument("--hold-s", type=float, default=3.0)
    ap.add_argument("--bind")
    ap.add_argument("--reconnect", action="store_true")
    ap.add_argument("--request-every-ms", type=int, default=0)
    ap.add_argument("--request-once", action="store_true")
    ap.add_argument("--ready")
    a = ap.parse_args()
    p = Pool(a)
    for _ in range(a.conns):
        p.open_one()
        p.watch(0)
    if a.ready:
        open(a.ready, "w").close()
    end = time.monotonic() + a.hold_s
    next_req = time.monotonic()
    while time.monotonic() < end:
        if a.request_every_ms and time.monotonic() >= next_req:
            p.request()
            next_req = time.monotonic() + a.request_every_ms / 1000.0
        p.watch(0.05)
        while a.reconnect and len(p.conns) < a.conns and time.monotonic() < end:
            p.open_one()
            p.watch(0)
    print(json.dumps({"opened": p.opened, "failed": p.failed, "closed_by_server": p.gone,
                      "open_at_end": len(p.conns), "answers": p.answers}))
    for s in p.conns:
        s.close()


if __name__ == "__main__":
    main()
