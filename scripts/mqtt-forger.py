#!/usr/bin/env python3
"""A broker participant without the fleet's key, for scripts/fleet-test.sh.

    mqtt-forger.py HOST PORT FLEET SECONDS

Connects to the MQTT broker (MQTT 3.1.1, written out here: no client
library), watches the fleet FLEET's worker states and reports, and tries
what anyone on a shared broker could:

- to every worker that comes online: an unsealed plan that aims it at
  another node, an unsealed start, and a start with a forged seal;
- once the first real record batch of a worker goes by: the same bytes
  again (a replay), a copy with its body altered, an unsealed batch of
  invented records, and an unsealed `done`.

Prints one line per forgery to stdout (`forged KIND on TOPIC`) and exits 0
once both kinds were tried, or 1 after SECONDS without a record batch.
"""

import json
import socket
import sys
import time


def varint(n):
    out = bytearray()
    while True:
        b = n % 128
        n //= 128
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def text(s):
    b = s.encode()
    return len(b).to_bytes(2, "big") + b


class Mqtt:
    def __init__(self, host, port, client_id):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.buf = b""
        body = text("MQTT") + bytes([4, 0x02]) + (60).to_bytes(2, "big") + text(client_id)
        self.send(0x10, body)
        kind, rest = self.packet()
        if kind != 0x20 or rest[1:2] != b"\x00":
            sys.exit(f"mqtt-forger: the broker refused the connection: {rest!r}")

    def send(self, first, body):
        self.sock.sendall(bytes([first]) + varint(len(body)) + body)

    def read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                sys.exit("mqtt-forger: the broker closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def packet(self):
        first = self.read(1)[0]
        length, shift = 0, 0
        while True:
            b = self.read(1)[0]
            length += (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        return first & 0xF0, self.read(length)

    def subscribe(self, topic, packet_id):
        self.send(0x82, packet_id.to_bytes(2, "big") + text(topic) + b"\x00")

    def publish(self, topic, payload):
        self.send(0x30, text(topic) + payload)

    def flush(self):
        """Wait until the broker has handled everything sent: it answers a
        PINGREQ only after the packets before it. Then say goodbye (a
        client that just closes may lose what the broker had not read)."""
        self.send(0xC0, b"")
        while self.packet()[0] != 0xD0:
            pass
        self.send(0xE0, b"")

    def messages(self):
        """(topic, payload) of each PUBLISH; other packets are skipped."""
        while True:
            kind, rest = self.packet()
            if kind != 0x30:
                continue
            n = int.from_bytes(rest[:2], "big")
            topic = rest[2 : 2 + n].decode()
            # Delivered at the subscription's QoS 0: no packet id.
            yield topic, rest[2 + n :]


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: mqtt-forger.py HOST PORT FLEET SECONDS")
    host, port, fleet, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    root = f"dyno/{fleet}/worker"
    m = Mqtt(host, port, f"forger-{time.time_ns()}")
    m.sock.settimeout(seconds)
    m.subscribe(f"{root}/+/state", 1)
    m.subscribe(f"{root}/+/out", 2)
    deadline = time.monotonic() + seconds
    aimed, batch_done = set(), False

    def forged(kind, topic, payload):
        m.publish(topic, payload)
        print(f"forged {kind} on {topic}", flush=True)

    plan = {
        "plan": {
            "node_url": f"http://{host}:9",
            "chain_id": 1337,
            "fees": {
                "chain_id": 1337,
                "max_fee_per_gas": 1,
                "max_priority_fee_per_gas": 1,
                "max_fee_per_blob_gas": 1,
            },
            "gas": {},
            "token": None,
            "store": None,
            "store_code": "",
            "seed": "forger",
            "accounts_total": 1,
            "first_account": 0,
            "accounts": 1,
            "items": [{"index": 0, "sender": 0, "nonce": 0, "kind": "transfer", "nth": 0}],
            "schedule": "10",
            "open_loop_cap": 1,
            "connections": 1,
            "request_timeout_ms": 1000,
            "threads": 1,
        }
    }
    start = json.dumps({"start": {"at_wall_ns": time.time_ns()}}).encode()
    bad_seal = f"dyno-fleet-1 {'ab' * 16} {'cd' * 16} 7 {'00' * 32}\n".encode() + start
    for topic, payload in m.messages():
        if time.monotonic() > deadline:
            break
        worker = topic.split("/")[3]
        if topic.endswith("/state") and b'"online"' in payload and worker not in aimed:
            aimed.add(worker)
            cmd = f"{root}/{worker}/cmd"
            forged("plan", cmd, json.dumps(plan).encode())
            forged("start", cmd, start)
            forged("sealed-start", cmd, bad_seal)
        elif topic.endswith("/out") and b'"records"' in payload and not batch_done:
            batch_done = True
            forged("replay", topic, payload)
            header, _, body = payload.partition(b"\n")
            altered = body.replace(b'"index":', b'"index":1', 1)
            forged("altered-batch", topic, header + b"\n" + altered)
            fake = {
                "records": {
                    "seq": 0,
                    "items": [{"index": 0, "intended_ns": 0, "sent_ns": 0, "replied_ns": 10**12}],
                }
            }
            forged("batch", topic, json.dumps(fake).encode())
            done = {"done": {"records": 0, "batches": 0, "stopped": False, "detail": None}}
            forged("done", topic, json.dumps(done).encode())
        if aimed and batch_done:
            m.flush()
            return 0
    print(f"mqtt-forger: no record batch within {seconds} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
