"""A fake Engine-API client for dyno client check's tests (standard library
only). It executes nothing; it answers as a client would, well or badly:

  --mode good        checks the JWT (HS256 over the secret in --jwt, iat
                     within 60 s); answers INVALID to the first payload it
                     is given at each height above 1 and VALID after (the
                     check sends its bad block before the good one of the
                     same height): a client that passes every check
  --mode accept-all  as good, but VALID to every payload (it validates
                     nothing)
  --mode no-jwt      as good, but answers whatever token it gets, or none

and one mode for each other check, which it fails (as good otherwise):

  refuse-all         refuses every token, the secret's too (jwt)
  bad-status         refuses a bad token with HTTP 400, not 401 (jwt-other,
                     jwt-none, jwt-unsigned, jwt-stale)
  rpc-error          answers a bad token at HTTP 200 with "method not found",
                     which is no refusal (the four jwt-* checks)
  auth-error         refuses a bad token at HTTP 200 with "Auth failed", as
                     ethrex does (notes, not failures)
  no-capabilities    does not offer engine_forkchoiceUpdatedV3
  wrong-genesis      its block 0 is another block
  reject-all         INVALID to every payload (valid)
  stuck-head         takes forkchoiceUpdated, but its head stays block 0
  bad-log            writes a "Slow block" line that is not JSON (block-log)
  bad-metrics        answers at --metrics-port, but with no Prometheus series
  daemon             double-forks a daemon (its own session, adopted away
                     from its parent) that listens on 0.0.0.0 and outlives
                     a SIGTERM to the client's group (loopback, stop); the
                     daemon writes its pid to --pid-file

  fake_client.py --port P --jwt FILE --genesis-hash 0x.. --mode MODE
      [--metrics-port P] [--pid-file FILE]
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def b64decode(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def token_ok(header, secret):
    if not header.startswith("Bearer "):
        return False
    try:
        head, claims, signature = header[len("Bearer ") :].split(".")
        if json.loads(b64decode(head)).get("alg") != "HS256":
            return False
        want = hmac.new(secret, f"{head}.{claims}".encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(want, b64decode(signature)):
            return False
        return abs(json.loads(b64decode(claims))["iat"] - time.time()) <= 60
    except (ValueError, KeyError):
        return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--jwt", required=True)
    p.add_argument("--genesis-hash", required=True)
    modes = [
        "good",
        "accept-all",
        "no-jwt",
        "refuse-all",
        "bad-status",
        "rpc-error",
        "auth-error",
        "no-capabilities",
        "wrong-genesis",
        "reject-all",
        "stuck-head",
        "bad-log",
        "bad-metrics",
        "daemon",
    ]
    p.add_argument("--mode", choices=modes, required=True)
    p.add_argument("--metrics-port", type=int)
    p.add_argument("--pid-file")
    args = p.parse_args()
    if args.mode == "daemon":
        daemonize(args.pid_file)
    if args.metrics_port is not None:
        serve_metrics(args.metrics_port, args.mode)
    with open(args.jwt) as f:
        secret = bytes.fromhex(f.read().strip())
    genesis = {"hash": args.genesis_hash, "number": "0x0"}
    if args.mode == "wrong-genesis":
        genesis = {"hash": "0x" + "11" * 32, "number": "0x0"}
    blocks = {args.genesis_hash: genesis}
    seen_heights = set()
    head = [genesis]

    def answer(method, params):
        if method == "engine_exchangeCapabilities":
            if args.mode == "no-capabilities":
                return ["engine_newPayloadV4"]
            return ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"]
        if method == "engine_newPayloadV4":
            payload = params[0]
            number = int(payload["blockNumber"], 16)
            first = number not in seen_heights
            seen_heights.add(number)
            if args.mode == "bad-log":
                print("WARN Slow block {not json", flush=True)
            if args.mode == "reject-all" or (args.mode != "accept-all" and number > 1 and first):
                return {
                    "status": "INVALID",
                    "latestValidHash": payload["parentHash"],
                    "validationError": "invalid state root",
                }
            blocks[payload["blockHash"]] = {
                "hash": payload["blockHash"],
                "number": payload["blockNumber"],
            }
            return {
                "status": "VALID",
                "latestValidHash": payload["blockHash"],
                "validationError": None,
            }
        if method == "engine_forkchoiceUpdatedV3":
            block = blocks.get(params[0]["headBlockHash"])
            if block is None:
                return {
                    "payloadStatus": {"status": "SYNCING", "latestValidHash": None},
                    "payloadId": None,
                }
            if args.mode != "stuck-head":
                head[0] = block
            return {
                "payloadStatus": {"status": "VALID", "latestValidHash": block["hash"]},
                "payloadId": None,
            }
        if method == "eth_blockNumber":
            return head[0]["number"]
        if method == "eth_getBlockByNumber":
            tag = params[0]
            if tag == "latest":
                return head[0]
            return next((b for b in blocks.values() if int(b["number"], 16) == int(tag, 16)), None)
        raise KeyError(method)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            bad = args.mode == "refuse-all" or (
                args.mode != "no-jwt"
                and not token_ok(self.headers.get("Authorization", ""), secret)
            )
            if bad and args.mode in ("rpc-error", "auth-error"):
                request = json.loads(body)
                message = "method not found" if args.mode == "rpc-error" else "Auth failed"
                self.reply(
                    {
                        "jsonrpc": "2.0",
                        "id": request["id"],
                        "error": {"code": -32000, "message": message},
                    }
                )
                return
            if bad:
                self.send_response(400 if args.mode == "bad-status" else 401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            request = json.loads(body)
            try:
                reply = {
                    "jsonrpc": "2.0",
                    "id": request["id"],
                    "result": answer(request["method"], request.get("params", [])),
                }
            except KeyError:
                reply = {
                    "jsonrpc": "2.0",
                    "id": request["id"],
                    "error": {"code": -32601, "message": "method not found"},
                }
            self.reply(reply)

        def reply(self, reply):
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_):
            pass

    # A thread per connection: dyno keeps one open while it opens others.
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


def daemonize(pid_file):
    """Fork a child that starts a session of its own and forks the daemon,
    then exits: the daemon is in no group of the client and its parent is
    gone (a subreaper above it adopts it). It listens on every address and
    ignores SIGTERM; the client goes on once its pid is written."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.close(read)
            server = socket.socket()
            server.bind(("0.0.0.0", 0))
            server.listen()
            with open(pid_file, "w") as f:
                f.write(str(os.getpid()))
            os.write(write, b"x")
            while True:
                time.sleep(60)
        os._exit(0)
    os.close(write)
    os.read(read, 1)
    os.close(read)
    os.wait()


def serve_metrics(port, mode):
    """A metrics endpoint: Prometheus text, or (bad-metrics) a page with no
    series at all."""
    body = b"<html>no metrics here</html>" if mode == "bad-metrics" else b"chain_head 1\n"

    class Metrics(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Metrics)
    threading.Thread(target=server.serve_forever, daemon=True).start()


if __name__ == "__main__":
    main()
