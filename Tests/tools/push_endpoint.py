#!/usr/bin/env python3
"""A Web Push service for the tests: one browser's subscription, and the push service it points at.

Usage: push_endpoint.py RECORD_FILE
Prints one JSON line — {"endpoint", "gone", "p256dh", "auth"} — then serves on a free port. Each message POSTed to
/push/ok is decrypted with http_ece (RFC 8291 aes128gcm, the subscription's private key and auth secret) and its
VAPID header checked with py_vapid (RFC 8292); what was read is appended to RECORD_FILE as a JSON line, and the
answer is 201. /push/gone answers 410, as a push service does for a subscription that expired.
"""
import base64
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


RECORD = sys.argv[1]
KEY = ec.generate_private_key(ec.SECP256R1())
AUTH = os.urandom(16)
PUBLIC = KEY.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        entry = {"path": self.path, "headers": {name.lower(): value for name, value in self.headers.items()}}
        if self.path == "/push/ok":
            try:
                entry["payload"] = json.loads(http_ece.decrypt(body, private_key=KEY, auth_secret=AUTH, version="aes128gcm"))
            except Exception as error:  # recorded, for the test to show
                entry["decrypt_error"] = repr(error)
            authorization = self.headers.get("Authorization", "")
            try:
                entry["vapid_valid"] = bool(Vapid02.verify(authorization))
            except Exception as error:
                entry["vapid_valid"] = False
                entry["vapid_error"] = repr(error)
            token = authorization.split("t=", 1)[-1].split(",", 1)[0]
            try:
                entry["claims"] = json.loads(unb64url(token.split(".")[1]))
            except Exception:
                entry["claims"] = None
        with open(RECORD, "a") as record:
            record.write(json.dumps(entry) + "\n")
        self.send_response(201 if self.path == "/push/ok" else 410)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
base = f"http://127.0.0.1:{server.server_address[1]}"
print(json.dumps({"endpoint": base + "/push/ok", "gone": base + "/push/gone", "p256dh": b64url(PUBLIC), "auth": b64url(AUTH)}), flush=True)
server.serve_forever()
