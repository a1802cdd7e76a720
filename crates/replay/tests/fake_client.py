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

  fake_client.py --port P --jwt FILE --genesis-hash 0x.. --mode MODE
"""

import argparse
import base64
import hashlib
import hmac
import json
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
    p.add_argument("--mode", choices=["good", "accept-all", "no-jwt"], required=True)
    args = p.parse_args()
    with open(args.jwt) as f:
        secret = bytes.fromhex(f.read().strip())
    genesis = {"hash": args.genesis_hash, "number": "0x0"}
    blocks = {args.genesis_hash: genesis}
    seen_heights = set()
    head = [genesis]

    def answer(method, params):
        if method == "engine_exchangeCapabilities":
            return ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"]
        if method == "engine_newPayloadV4":
            payload = params[0]
            number = int(payload["blockNumber"], 16)
            first = number not in seen_heights
            seen_heights.add(number)
            if args.mode != "accept-all" and number > 1 and first:
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
            if args.mode != "no-jwt" and not token_ok(
                self.headers.get("Authorization", ""), secret
            ):
                self.send_response(401)
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


if __name__ == "__main__":
    main()
