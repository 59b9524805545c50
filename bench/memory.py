"""PERF-5: the server's resident memory idle, while receiving one 200 MB upload, and while streaming a 2 GB ZIP."""
import json
import http.client
import os
import threading
import time

from common import WORK, Server

import pyvips


def big_jpeg(size_mb: int = 200) -> str:
    """A real JPEG of about `size_mb` MB (noise at quality 100 hardly compresses)."""
    path = os.path.join(WORK, f"big-{size_mb}.jpg")
    if not os.path.exists(path):
        side = int((size_mb * 1_000_000 / 2.9) ** 0.5)
        pyvips.Image.gaussnoise(side, side, sigma=60).bandjoin([pyvips.Image.gaussnoise(side, side, sigma=60)] * 2) \
            .cast("uchar").jpegsave(path, Q=100, subsample_mode="off")
    return path


class PeakRSS:
    """Samples the server's RSS every 10 ms while a `with` block runs."""

    def __init__(self, server: Server):
        self.server, self.peak, self.running = server, 0, False

    def __enter__(self):
        self.running = True
        self.thread = threading.Thread(target=self._sample)
        self.thread.start()
        return self

    def _sample(self):
        while self.running:
            self.peak = max(self.peak, self.server.rss_kib())
            time.sleep(0.01)

    def __exit__(self, *_):
        self.running = False
        self.thread.join()


def idle(server: Server) -> float:
    time.sleep(2)
    return server.rss_kib() / 1024


def receiving_upload(server: Server, event_id: str, token: str) -> dict:
    path = big_jpeg()
    before = server.rss_kib()
    with PeakRSS(server) as peak:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        connection.putrequest("POST", f"/api/v1/events/{event_id}/photos")
        connection.putheader("Authorization", f"Bearer {token}")
        connection.putheader("Content-Type", "image/jpeg")
        connection.putheader("Content-Length", str(os.path.getsize(path)))
        connection.endheaders()
        with open(path, "rb") as file:
            while chunk := file.read(1 << 20):
                connection.send(chunk)
        response = connection.getresponse()
        photo = json.loads(response.read())
    # Let its rendering finish here: a server stopped mid-render redoes it after the restart, during the ZIP's figure.
    client = server.client()
    while client.call("GET", f"/api/v1/photos/{photo['id']}", token=token)["status"] == "processing":
        time.sleep(0.5)
    return {"status": response.status, "size_mb": os.path.getsize(path) / 1e6, "before_mb": before / 1024, "peak_mb": peak.peak / 1024}


def streaming_zip(server: Server, event_id: str, token: str) -> dict:
    before = server.rss_kib()
    received = 0
    start = time.perf_counter()
    with PeakRSS(server) as peak:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        connection.request("GET", f"/api/v1/events/{event_id}/archive.zip", headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        while chunk := response.read(1 << 20):
            received += len(chunk)
    seconds = time.perf_counter() - start
    return {"status": response.status, "size_gb": received / 1e9, "mb_per_s": received / 1e6 / seconds, "before_mb": before / 1024,
            "peak_mb": peak.peak / 1024}
