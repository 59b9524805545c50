"""LIB-4: the first `disposable sync` of a folder of 1,000 photos, a re-run, and a second folder holding the same
photos — against a reference in the same run: the same files sent with plain HTTP POSTs over four kept-alive
connections (the sync's four uploads at once), the least a client that sends each photo must do."""
import hashlib
import http.client
import os
import subprocess
import tempfile
import threading
import time
import uuid

from common import BINARY, Server


def generate(folder: str, count: int) -> list[str]:
    """`count` distinct 1600x1200 JPEGs (q85, ~0.9 MB of noise: the file size of a phone's 12 MP photo scaled down
    for speed), made once."""
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, f"IMG_{index:04d}.jpg") for index in range(count)]
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        base = os.path.join(folder, ".noise.v")
        subprocess.run(["vips", "gaussnoise", base, "1600", "1200", "--mean", "128", "--sigma", "40"], check=True)
        for index, path in enumerate(missing):
            # Each file differs by its comment, so that each is a photo of its own for the server.
            subprocess.run(["vips", "copy", base, f"{path}[Q=85]"], check=True)
            with open(path, "ab") as handle:
                handle.write(f"{index}".encode())
        os.remove(base)
    return paths


def _sync(config: str, folder: str) -> float:
    started = time.perf_counter()
    subprocess.run([BINARY, "sync", folder], env=dict(os.environ, XDG_CONFIG_HOME=config), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _peak_rss(server: Server, stop: threading.Event, peak: list):
    while not stop.is_set():
        peak[0] = max(peak[0], server.rss_kib())
        time.sleep(0.05)


def _count(client, token: str, ready_only: bool = False) -> int:
    count, cursor = 0, None
    while True:
        page = client.call("GET", "/api/v1/library/assets?limit=100" + (f"&cursor={cursor}" if cursor else ""), token=token)
        count += sum(1 for item in page["items"] if not ready_only or item["status"] == "ready")
        cursor = page.get("nextCursor")
        if not cursor:
            return count


def _wait_rendered(client, token: str, count: int):
    while _count(client, token, ready_only=True) < count:
        time.sleep(2)


def run(paths: list[str]) -> dict:
    server = Server(port=8095).start()
    email = f"sync-{uuid.uuid4().hex[:8]}@example.org"
    client = server.client()
    client.call("POST", "/api/v1/users", {"email": email, "password": "benchmark password", "name": "Sync"})
    token = client.call("POST", "/api/v1/sessions", {"email": email, "password": "benchmark password"})["token"]
    config = tempfile.mkdtemp(prefix="disposable-sync-config-")
    login = subprocess.run([BINARY, "login", "--server", f"http://127.0.0.1:{server.port}", "--email", email, "--password-stdin"],
                           input=b"benchmark password\n", env=dict(os.environ, XDG_CONFIG_HOME=config), capture_output=True)
    assert login.returncode == 0, login.stderr
    result = {"count": len(paths), "mb": sum(os.path.getsize(path) for path in paths) / 1e6, "idle_kib": server.rss_kib()}

    # The reference: each file POSTed once, in turn, into a second account's library (same server, same work on it).
    other = f"ref-{uuid.uuid4().hex[:8]}@example.org"
    client.call("POST", "/api/v1/users", {"email": other, "password": "benchmark password", "name": "Reference"})
    other_token = client.call("POST", "/api/v1/sessions", {"email": other, "password": "benchmark password"})["token"]
    def send(share: list[str]):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        for path in share:
            with open(path, "rb") as handle:
                connection.request("POST", "/api/v1/library/assets", body=handle.read(), headers={
                    "Authorization": f"Bearer {other_token}", "Content-Type": "image/jpeg",
                    "Idempotency-Key": hashlib.sha256(path.encode()).hexdigest()})
            response = connection.getresponse()
            response.read()
            assert response.status == 201, response.status

    # As many connections as the sync's uploads at once (FolderSync.concurrentUploads).
    senders = [threading.Thread(target=send, args=(paths[index::4],)) for index in range(4)]
    started = time.perf_counter()
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    result["reference_s"] = time.perf_counter() - started
    _wait_rendered(client, other_token, len(paths))  # its renders must not slow the sync below

    # The first sync of a folder holding the photos, the server's memory sampled meanwhile.
    folder = tempfile.mkdtemp(prefix="disposable-sync-a-")
    for path in paths:
        os.link(path, os.path.join(folder, os.path.basename(path)))
    stop, peak = threading.Event(), [0]
    sampler = threading.Thread(target=_peak_rss, args=(server, stop, peak))
    sampler.start()
    result["first_s"] = _sync(config, folder)
    _wait_rendered(client, token, len(paths))
    stop.set()
    sampler.join()
    result["peak_kib"] = peak[0]
    result["rerun_s"] = _sync(config, folder)
    # A second folder with the same photos and no state: matched by content from the feed, nothing sent.
    second = tempfile.mkdtemp(prefix="disposable-sync-b-")
    for path in paths:
        os.link(path, os.path.join(second, os.path.basename(path)))
    result["same_photos_s"] = _sync(config, second)
    assert _count(client, token) == len(paths), "each photo once"
    server.stop()
    return result


def describe(result: dict) -> str:
    count = result["count"]
    first = count / result["first_s"]
    reference = count / result["reference_s"]
    return (f"first sync {first:.1f} photos/s ({result['mb']:.0f} MB in {result['first_s']:.1f} s), server peak RSS "
            f"{result['peak_kib'] / 1024:.0f} MB (idle {result['idle_kib'] / 1024:.0f} MB); re-run {result['rerun_s']:.2f} s; a second "
            f"folder with the same photos {result['same_photos_s']:.1f} s (nothing sent: "
            f"{result['first_s'] / result['same_photos_s']:.0f}x faster than sending) | plain POSTs, 4 connections {reference:.1f} photos/s -> "
            f"{first / reference:.2f}x")
