#!/usr/bin/env python3
"""A Hugging Face-like file server for AuralKit's model tests: real HTTP on 127.0.0.1, files of one folder served
at <endpoint>/<repo>/resolve/<revision>/<file>, with Range requests, a throttle and injected faults.

Large files (model.bin) behave as Hugging Face's LFS files do: the resolve URL answers 302 with
X-Linked-Etag: "<sha256>" and X-Linked-Size, and redirects to a /cdn/ URL that serves the bytes with that ETag.
Small files are served directly with a git-like SHA-1 ETag.

    hf-test-server.py --root DIR [--rate BYTES_PER_SECOND] [--fault SPEC]...

Faults (each --fault, any number):
    status:FILE:CODE     answer CODE (404, 500, ...) for FILE
    corrupt:FILE:OFFSET  serve FILE with the byte at OFFSET flipped (the stated SHA-256 stays the true one)
    drop:FILE:BYTES      on the first GET of FILE, close the connection after BYTES bytes of body
    nolength:FILE        send FILE without Content-Length (the body ends when the connection closes)
    norange              ignore Range headers (always 200 with the whole file)
    token:SECRET         answer 401 unless "Authorization: Bearer SECRET"

The port is chosen by the system and printed on the first line of standard output. GET /_stats returns JSON:
{"requests": [{"method", "path", "range", "status", "sent"}...], "bytes_sent": N} (not counting /_stats itself).
"""
import argparse
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LFS_MIN_SIZE = 10 * 1024 * 1024


def main():
    # A child started by Foundation's Process inherits the parent thread's blocked signals: unblock the ones that
    # stop us, and also stop when the parent closes our standard input (or dies), so no server outlives its test.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--rate", type=int, default=0)
    parser.add_argument("--fault", action="append", default=[])
    args = parser.parse_args()

    files = {}
    for name in sorted(os.listdir(args.root)):
        path = os.path.join(args.root, name)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        files[name] = {
            "data": data,
            "sha256": hashlib.sha256(data).hexdigest(),
            "sha1": hashlib.sha1(data).hexdigest(),
            "lfs": len(data) >= LFS_MIN_SIZE,
        }

    faults = {"status": {}, "corrupt": {}, "drop": {}, "nolength": set(), "norange": False, "token": None}
    for spec in args.fault:
        kind, _, rest = spec.partition(":")
        if kind == "status":
            name, code = rest.rsplit(":", 1)
            faults["status"][name] = int(code)
        elif kind == "corrupt":
            name, offset = rest.rsplit(":", 1)
            faults["corrupt"][name] = int(offset)
        elif kind == "drop":
            name, count = rest.rsplit(":", 1)
            faults["drop"][name] = int(count)
        elif kind == "nolength":
            faults["nolength"].add(rest)
        elif kind == "norange":
            faults["norange"] = True
        elif kind == "token":
            faults["token"] = rest
        else:
            sys.exit("unknown fault " + spec)
    for name, offset in faults["corrupt"].items():
        data = bytearray(files[name]["data"])
        data[offset] ^= 0xFF
        files[name]["data"] = bytes(data)

    lock = threading.Lock()
    log = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_HEAD(self):
            self.handle_request(head=True)

        def do_GET(self):
            self.handle_request(head=False)

        def record(self, status, sent):
            with lock:
                log.append({"method": self.command, "path": self.path, "range": self.headers.get("Range"),
                            "status": status, "sent": sent})

        def simple(self, status, body=b"", headers=()):
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self.record(status, len(body) if self.command != "HEAD" else 0)

        def handle_request(self, head):
            path = self.path.split("?", 1)[0]
            if path == "/_stats":
                with lock:
                    body = json.dumps({"requests": list(log), "bytes_sent": sum(r["sent"] for r in log)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            parts = path.strip("/").split("/")
            if faults["token"] is not None and parts[0] != "cdn":
                if self.headers.get("Authorization") != "Bearer " + faults["token"]:
                    return self.simple(401, b"Invalid credentials")
            if parts[0] == "cdn" and len(parts) >= 2:
                name = parts[-1]
                if name not in files:
                    return self.simple(404, b"Not found")
                return self.send_file(name, head)
            # <owner>/<repo>/resolve/<revision>/<file>
            if len(parts) < 5 or parts[2] != "resolve":
                return self.simple(404, b"Repository not found")
            name = "/".join(parts[4:])
            if name in faults["status"]:
                return self.simple(faults["status"][name], b"injected fault")
            if name not in files:
                return self.simple(404, b"Entry not found")
            entry = files[name]
            if entry["lfs"]:
                host = self.headers.get("Host", "127.0.0.1")
                location = "http://%s/cdn/%s/%s" % (host, entry["sha256"], name)
                return self.simple(302, b"", [
                    ("Location", location),
                    ("X-Linked-Etag", '"%s"' % entry["sha256"]),
                    ("X-Linked-Size", str(len(entry["data"]))),
                    ("ETag", '"%s"' % entry["sha256"]),
                ])
            return self.send_file(name, head)

        def send_file(self, name, head):
            entry = files[name]
            data = entry["data"]
            etag = '"%s"' % (entry["sha256"] if entry["lfs"] else entry["sha1"])
            start, status = 0, 200
            requested = self.headers.get("Range")
            if_range = self.headers.get("If-Range")
            if requested and not faults["norange"] and (if_range is None or if_range == etag):
                first = requested.split("=", 1)[1].split("-", 1)[0]
                start = int(first)
                if start >= len(data):
                    return self.simple(416, b"", [("Content-Range", "bytes */%d" % len(data))])
                status = 206
            body = data[start:]
            self.send_response(status)
            self.send_header("ETag", etag)
            self.send_header("Accept-Ranges", "bytes")
            if status == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            if name in faults["nolength"]:
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if head:
                return self.record(status, 0)
            limit = len(body)
            drop = False
            with lock:
                if name in faults["drop"]:
                    limit = min(limit, faults["drop"].pop(name))
                    drop = True
            sent = 0
            chunk = 64 * 1024
            try:
                while sent < limit:
                    piece = body[sent:min(limit, sent + chunk)]
                    self.wfile.write(piece)
                    sent += len(piece)
                    if args.rate > 0:
                        time.sleep(len(piece) / args.rate)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.record(status, sent)
            if drop:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
