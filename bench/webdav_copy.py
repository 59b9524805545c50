"""The phone's backup over WebDAV: `rclone copy` of a folder of 1,000 photos into /dav/library/, against the first
`disposable sync` (LIB-4) of the same photos into another account, in one sitting on one server; then rclone again
(nothing should be sent)."""
import os
import subprocess
import tempfile
import time
import uuid

import library_sync
from common import BINARY, Server


def _account(client, name: str) -> tuple[str, str]:
    email = f"{name}-{uuid.uuid4().hex[:8]}@example.org"
    client.call("POST", "/api/v1/users", {"email": email, "password": "benchmark password", "name": name})
    return email, client.call("POST", "/api/v1/sessions", {"email": email, "password": "benchmark password"})["token"]


def run(paths: list[str]) -> dict:
    server = Server(port=8096).start()
    client = server.client()
    folder = tempfile.mkdtemp(prefix="disposable-phone-")
    for path in paths:
        os.link(path, os.path.join(folder, os.path.basename(path)))
    result = {"count": len(paths)}

    # The reference: the CLI's first sync (four uploads at once), into its own account.
    email, token = _account(client, "sync")
    config = tempfile.mkdtemp(prefix="disposable-sync-config-")
    login = subprocess.run([BINARY, "login", "--server", f"http://127.0.0.1:{server.port}", "--email", email, "--password-stdin"],
                           input=b"benchmark password\n", env=dict(os.environ, XDG_CONFIG_HOME=config), capture_output=True)
    assert login.returncode == 0, login.stderr
    started = time.perf_counter()
    subprocess.run([BINARY, "sync", folder], env=dict(os.environ, XDG_CONFIG_HOME=config), check=True, stdout=subprocess.DEVNULL)
    result["sync_s"] = time.perf_counter() - started
    library_sync._wait_rendered(client, token, len(paths))  # its renders must not slow rclone below

    # rclone, as a phone app or a computer would run it: a WebDAV remote with an app password, four transfers.
    email, token = _account(client, "rclone")
    secret = client.call("POST", "/api/v1/me/app-passwords", {"name": "rclone"}, token=token)["password"]
    obscured = subprocess.run(["rclone", "obscure", secret], capture_output=True, text=True, check=True).stdout.strip()
    environment = dict(os.environ, RCLONE_CONFIG="/dev/null", RCLONE_CONFIG_PHONE_TYPE="webdav", RCLONE_CONFIG_PHONE_VENDOR="other",
                       RCLONE_CONFIG_PHONE_URL=f"http://127.0.0.1:{server.port}/dav/", RCLONE_CONFIG_PHONE_USER=email,
                       RCLONE_CONFIG_PHONE_PASS=obscured)
    def rclone() -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(["rclone", "copy", folder, "phone:library/DCIM/Camera", "--transfers", "4", "-v"], env=environment,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        return time.perf_counter() - started, done.stderr
    result["rclone_s"], _ = rclone()
    assert library_sync._count(client, token) == len(paths), "each photo once"
    result["rerun_s"], log = rclone()
    result["rerun_copied"] = log.count("Copied")
    server.stop()
    return result


def describe(result: dict) -> str:
    count = result["count"]
    sync, rclone = count / result["sync_s"], count / result["rclone_s"]
    return (f"rclone copy over WebDAV {rclone:.1f} photos/s ({result['rclone_s']:.1f} s) | disposable sync {sync:.1f} photos/s "
            f"({result['sync_s']:.1f} s) -> {rclone / sync:.2f}x; rclone again: {result['rerun_copied']} copied in {result['rerun_s']:.1f} s")
