#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A TLS man in the middle between nettunectl and one agent, for the confirm tests.

It terminates the controller's mTLS connection with a certificate the controller
trusts (the agents' CA; the certificate must name the address it listens on),
requires the controller's client certificate, and opens its own mTLS connection
to the agent with the controller's client certificate. Every HTTP/1.1 request is
relayed as it is, one at a time per connection, except POST /v1/confirm/TX:

  --mode drop   the confirm is forwarded and the agent's whole answer is read, then
                the controller's connection is closed without it: the controller
                never learns what the agent did (a lost answer).
  --mode late   the confirm is held until the controller's own not_after_ms (from
                its body) has passed by --late-ms, then forwarded; the answer is
                relayed (the agent refuses a confirm that late: 409 expired).
  --mode hold-rollback
                confirms pass; a POST /v1/rollback is held (--gate DIR gets
                rollback.held) until DIR/rollback.open exists, then forwarded and its
                answer relayed: the window between a controller's history check and
                its rollback, held open.

Each confirm it touches is one line in --log: "drop TX STATUS" or "late TX STATUS
NOT_AFTER_MS FORWARDED_MS", written once the agent answered; a held rollback is
"rollback STATUS BODY".
"""
import argparse
import json
import os
import socket
import ssl
import sys
import threading
import time

MAX_LINE = 65536
MAX_BODY = 8 << 20


class Closed(Exception):
    pass


def read_message(f):
    """One HTTP/1.1 message from a buffered reader: (start line, [header lines], body) or None at EOF."""
    start = f.readline(MAX_LINE)
    if not start:
        return None
    if not start.endswith(b"\n"):
        raise Closed("start line too long")
    headers = []
    while True:
        line = f.readline(MAX_LINE)
        if not line:
            raise Closed("connection closed inside the headers")
        if line in (b"\r\n", b"\n"):
            break
        headers.append(line)
    length, chunked = 0, False
    for h in headers:
        name, _, value = h.decode("latin-1").partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value.strip())
        elif name == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if chunked:
        body = read_chunked(f)
        headers = [h for h in headers if not h.lower().startswith(b"transfer-encoding")]
        headers.append(b"Content-Length: %d\r\n" % len(body))
    else:
        if length > MAX_BODY:
            raise Closed("body too large")
        body = f.read(length) if length else b""
        if len(body) != length:
            raise Closed("connection closed inside the body")
    return start, headers, body


def read_chunked(f):
    body = b""
    while True:
        size = int(f.readline(MAX_LINE).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while f.readline(MAX_LINE) not in (b"\r\n", b"\n", b""):
                pass
            return body
        body += f.read(size)
        f.readline(MAX_LINE)
        if len(body) > MAX_BODY:
            raise Closed("body too large")


def encode(msg):
    start, headers, body = msg
    return start + b"".join(headers) + b"\r\n" + body


class Proxy:
    def __init__(self, args):
        self.args = args
        host, port = args.upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.server_ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        self.server_ctx.load_cert_chain(args.cert, args.key)
        self.server_ctx.verify_mode = ssl.CERT_REQUIRED
        self.server_ctx.load_verify_locations(args.client_ca)
        self.client_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self.client_ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        self.client_ctx.load_verify_locations(args.ca)
        self.client_ctx.load_cert_chain(args.client_cert, args.client_key)
        self.log_lock = threading.Lock()

    def log(self, line):
        with self.log_lock, open(self.args.log, "a") as f:
            f.write(line + "\n")

    def connect_upstream(self):
        raw = socket.create_connection(self.upstream, timeout=120)
        tls = self.client_ctx.wrap_socket(raw, server_hostname=self.upstream[0])
        return tls, tls.makefile("rb")

    def confirm_tx(self, start):
        parts = start.split(b" ")
        if len(parts) < 2 or parts[0] != b"POST" or not parts[1].startswith(b"/v1/confirm/"):
            return None
        return parts[1][len(b"/v1/confirm/"):].decode("latin-1")

    def hold_late(self, body):
        not_after = json.loads(body or b"{}").get("not_after_ms", 0)
        while time.time() * 1000 <= not_after + self.args.late_ms:
            time.sleep(0.05)
        return not_after

    def hold_rollback(self, start):
        parts = start.split(b" ")
        if self.args.mode != "hold-rollback" or len(parts) < 2 or parts[0] != b"POST" or parts[1].split(b"?")[0] != b"/v1/rollback":
            return False
        open(os.path.join(self.args.gate, "rollback.held"), "w").close()
        while not os.path.exists(os.path.join(self.args.gate, "rollback.open")):
            time.sleep(0.05)
        return True

    def serve(self, conn):
        up = upf = tls = None
        try:
            tls = self.server_ctx.wrap_socket(conn, server_side=True)
            f = tls.makefile("rb")
            while True:
                req = read_message(f)
                if req is None:
                    return
                tx = self.confirm_tx(req[0])
                not_after = None
                if tx is not None and self.args.mode == "late":
                    not_after = self.hold_late(req[2])
                held = self.hold_rollback(req[0])
                if up is None:
                    up, upf = self.connect_upstream()
                forwarded = int(time.time() * 1000)
                up.sendall(encode(req))
                resp = read_message(upf)
                if resp is None:
                    return
                status = resp[0].split(b" ")[1].decode("latin-1")
                if held:
                    self.log("rollback %s %s" % (status, req[2].decode("latin-1")))
                if tx is not None and self.args.mode == "drop":
                    self.log("drop %s %s" % (tx, status))
                    return                      # the answer goes nowhere: close on the controller
                if tx is not None and self.args.mode == "late":
                    self.log("late %s %s %d %d" % (tx, status, not_after, forwarded))
                tls.sendall(encode(resp))
        except (OSError, ssl.SSLError, Closed, ValueError) as e:
            print("confirm_proxy: connection: %s" % e, file=sys.stderr)
        finally:
            for s in (up, tls, conn):
                try:
                    if s is not None:
                        s.close()
                except OSError:
                    pass

    def run(self):
        host, port = self.args.listen.rsplit(":", 1)
        srv = socket.create_server((host, int(port)), backlog=64)
        print("confirm_proxy: %s -> %s:%d, mode %s" % (self.args.listen, *self.upstream, self.args.mode),
              file=sys.stderr, flush=True)
        while True:
            conn, _ = srv.accept()
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", required=True, help="IP:PORT")
    p.add_argument("--upstream", required=True, help="the agent's IP:PORT")
    p.add_argument("--cert", required=True, help="certificate shown to the controller")
    p.add_argument("--key", required=True)
    p.add_argument("--client-ca", required=True, help="CA of the controller's certificate")
    p.add_argument("--ca", required=True, help="CA of the agent's certificate")
    p.add_argument("--client-cert", required=True, help="certificate shown to the agent")
    p.add_argument("--client-key", required=True)
    p.add_argument("--mode", choices=("drop", "late", "hold-rollback"), required=True)
    p.add_argument("--gate", default=".", help="hold-rollback: where rollback.held / rollback.open are")
    p.add_argument("--late-ms", type=int, default=1000)
    p.add_argument("--log", required=True)
    Proxy(p.parse_args()).run()


if __name__ == "__main__":
    main()
