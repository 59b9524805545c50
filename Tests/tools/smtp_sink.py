#!/usr/bin/env python3
"""A real SMTP server for the tests (aiosmtpd): every message it accepts is written to DIR/N.eml.
Usage: smtp_sink.py PORT DIR [USER PASSWORD]   (with USER and PASSWORD, AUTH is required, over plain TCP)"""
import os
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        path = os.path.join(self.folder, f"{self.count}.eml")
        with open(path + ".tmp", "wb") as file:
            file.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n" + envelope.original_content)
        os.replace(path + ".tmp", path)
        return "250 OK"


def main():
    port, folder = int(sys.argv[1]), sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    options = {}
    if len(sys.argv) > 4:
        user, password = sys.argv[3].encode(), sys.argv[4].encode()

        def authenticator(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and data.login == user and data.password == password
            return AuthResult(success=ok)

        options = {"authenticator": authenticator, "auth_required": True, "auth_require_tls": False}
    controller = Controller(Sink(folder), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print(f"listening on {port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
