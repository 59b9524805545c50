#!/usr/bin/env python3
"""A hostile OpenID Connect provider for the tests: everything a provider serves, but the ID token its token
endpoint answers is whatever the test put there — signed by another key, for another audience, expired, without
the nonce… — so that the server's checks, not this script, decide.

Usage: hostile_openid.py JWKS_FILE
Prints one line, its base URL, then serves on a free port: the discovery document (its issuer is the base URL),
JWKS_FILE's keys at /jwks (read at each request: a test rotates them by writing the file), an authorization endpoint nobody visits (the test reads the redirect itself), and
/token, answering {"id_token": …} with the token last PUT to /next-token (plain text).
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NEXT = {"token": ""}


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body, kind="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        if self.path == "/.well-known/openid-configuration":
            self.answer(200, json.dumps({
                "issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                "jwks_uri": base + "/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["ES256"]}))
        elif self.path == "/jwks":
            self.answer(200, open(sys.argv[1]).read())
        else:
            self.answer(404, "{}")

    def do_PUT(self):
        NEXT["token"] = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        self.answer(204, "")

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/token":
            self.answer(200, json.dumps({"access_token": "x", "token_type": "Bearer", "id_token": NEXT["token"]}))
        else:
            self.answer(404, "{}")

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("http://127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
