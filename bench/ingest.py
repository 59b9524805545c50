"""PERF-1: 12 MP photos uploaded over HTTP until every one is ready, against pyvips and Pillow making
just the two derivatives from the same files on the same cores (no HTTP, no storage, no database)."""
import concurrent.futures
import io
import json
import multiprocessing
import os
import re
import socket
import threading
import time

from common import Server, join, organizer_and_event

PREVIEW, THUMBNAIL, QUALITY = 1600, 400, 82
CORES = os.cpu_count() or 2


def pyvips_derivatives(path: str) -> int:
    import pyvips
    # What a pyvips user writes: a shrink-on-load thumbnail (honours EXIF orientation) decoded once, the small one from it.
    preview = pyvips.Image.thumbnail(path, PREVIEW).copy_memory()
    preview_bytes = preview.jpegsave_buffer(Q=QUALITY, keep="none")
    thumbnail_bytes = preview.thumbnail_image(THUMBNAIL).jpegsave_buffer(Q=QUALITY, keep="none")
    return len(preview_bytes) + len(thumbnail_bytes)


def pillow_derivatives(path: str) -> int:
    from PIL import Image, ImageOps
    with Image.open(path) as image:
        image.draft("RGB", (PREVIEW, PREVIEW))  # DCT scaling on load: the JPEG shrink-on-load
        image = ImageOps.exif_transpose(image)
        image.thumbnail((PREVIEW, PREVIEW), Image.Resampling.LANCZOS)
        preview, small = io.BytesIO(), io.BytesIO()
        image.save(preview, "JPEG", quality=QUALITY)
        image.thumbnail((THUMBNAIL, THUMBNAIL), Image.Resampling.LANCZOS)
        image.save(small, "JPEG", quality=QUALITY)
        return preview.tell() + small.tell()


def _init_pyvips():
    import pyvips
    pyvips.cache_set_max(0)


def reference(paths: list[str], work) -> float:
    """photos/s with one process per core, each taking the next file. The workers are spawned, not forked: this
    process may have run libvips already (generating the photos), and libvips' threads do not survive a fork —
    forked workers sat in a futex wait forever on a fresh machine."""
    spawned = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(CORES, mp_context=spawned, initializer=_init_pyvips) as pool:
        list(pool.map(work, paths[:CORES]))  # warm up: imports, libvips start
        start = time.perf_counter()
        list(pool.map(work, paths))
        return len(paths) / (time.perf_counter() - start)


def first_look(path: str) -> bytes:
    """What a phone sends beside its photo: its own JPEG of it, upright, 640 px on the longest side, no metadata,
    at most 100 KB (the web app lowers the quality until it fits)."""
    import pyvips
    image = pyvips.Image.thumbnail(path, 640)
    for quality in (80, 60, 40):
        jpeg = image.jpegsave_buffer(Q=quality, keep="none")
        if len(jpeg) <= 100 * 1024:
            return jpeg
    raise RuntimeError(f"no first look of {path} fits in 100 KB")


def form(photo: bytes, look: bytes) -> tuple[bytes, str]:
    """The shutter's form: the first look, then the photo."""
    boundary = "bench" + os.urandom(8).hex()
    parts = []
    for name, data in (("firstLook", look), ("photo", photo)):
        parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\n"
                     f"Content-Type: image/jpeg\r\n\r\n".encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def disposable(server: Server, paths: list[str], clients: int = 4, first_looks: list[bytes] | None = None, wait_ready: bool = True) -> dict:
    """photos/s from the first byte sent to the last photo ready, with `clients` concurrent uploaders
    (each a guest of one event); the event and tokens are returned for the benchmarks that follow. With
    `first_looks` (made beforehand, as phones make them before they send), each goes in a form beside its photo."""
    token, event = organizer_and_event(server, shotsPerGuest=1000)
    guests = [join(server, event["code"], f"Guest {n}") for n in range(clients)]
    blobs = [open(path, "rb").read() for path in paths]
    kinds = ["image/heic" if path.endswith(".heic") else "image/jpeg" for path in paths]
    if first_looks:
        blobs, kinds = map(list, zip(*(form(blob, look) for blob, look in zip(blobs, first_looks))))
    lock = threading.Lock()
    queue = list(range(len(paths)))

    def uploader(guest: str):
        client = server.client()
        while True:
            with lock:
                if not queue:
                    return
                index = queue.pop(0)
            client.call("POST", f"/api/v1/events/{event['id']}/photos", blobs[index], token=guest, content_type=kinds[index])

    ready = ReadyWatcher(server, event["id"], token, len(paths)) if wait_ready else None
    cpu_start = server_cpu_seconds(server)
    start = time.perf_counter()
    threads = [threading.Thread(target=uploader, args=(guest,)) for guest in guests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    all_acknowledged = time.perf_counter()
    # The server's CPU while the uploads were received (its renders run meanwhile unless held back).
    acknowledging_cpu_ms = (server_cpu_seconds(server) - cpu_start) / len(paths) * 1000
    if not wait_ready:
        return {"acknowledged_s": all_acknowledged - start, "acknowledging_cpu_ms": acknowledging_cpu_ms}
    done = ready.wait()
    items = server.client().call("GET", f"/api/v1/events/{event['id']}/photos?limit=100", token=token)["items"]
    return {"photos_per_s": len(paths) / (done - start), "acknowledged_s": all_acknowledged - start, "ready_s": done - start,
            "token": token, "event": event, "guest": guests[0], "photo_ids": [item["id"] for item in items]}


class ReadyWatcher:
    """The moment the last photo is ready, as a phone learns it: from the event's live stream (LIVE-1), opened
    before the first upload. (Polling the gallery every 20 ms cost the server ≈ 1.5 ms of CPU a photo.)"""

    def __init__(self, server: Server, event_id: str, token: str, expected: int):
        self.expected, self.ready, self.failed = expected, set(), None
        self.finished = threading.Event()
        self.socket = socket.create_connection(("127.0.0.1", server.port))
        self.socket.sendall((f"GET /api/v1/events/{event_id}/changes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        self.head = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        if not self.head.wait(10):
            raise RuntimeError("the live stream did not answer")

    def _read(self):
        buffer = b""
        while not self.finished.is_set():
            try:
                chunk = self.socket.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            self.head.set()
            buffer += chunk
            lines = buffer.split(b"\n")
            buffer = lines.pop()
            for line in lines:
                # The chunked framing does not matter: data lines are found wherever they are.
                # A photo is done when its preview is (first shown with its thumbnail, `previewPending`,
                # then a `photo-updated` without it): PERF-1 measures the whole render, as pyvips's does.
                if line.startswith(b"data: {") and any(kind in line for kind in (b'"photo-ready"', b'"photo-updated"', b'"photo-failed"')):
                    change = json.loads(line[6:])
                    if change["kind"] == "photo-failed":
                        self.failed = change
                    elif not change["photo"].get("previewPending"):
                        self.ready.add(change["photo"]["id"])
                    if self.failed or len(self.ready) == self.expected:
                        self.at = time.perf_counter()
                        self.finished.set()
        self.finished.set()

    def wait(self, timeout: float = 300) -> float:
        """perf_counter() when the last photo was announced ready."""
        if not self.finished.wait(timeout):
            raise RuntimeError(f"{len(self.ready)} of {self.expected} photos ready after {timeout} s")
        self.socket.shutdown(socket.SHUT_RDWR)  # wakes the reader, and the server ends the stream
        self.socket.close()
        if self.failed:
            raise RuntimeError(f"a photo failed to process: {self.failed}")
        if len(self.ready) != self.expected:
            raise RuntimeError(f"the live stream ended with {len(self.ready)} of {self.expected} photos ready")
        return self.at


def server_cpu_seconds(server: Server) -> float:
    """CPU seconds (user + system) the server process has used so far."""
    with open(f"/proc/{server.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# In the order a photo goes through them: the upload's, then the render job's.
STEPS = ["receive", "check", "store", "record", "render", "write-derivatives", "mark-ready"]
STEP = re.compile(r'^disposable_ingest_step_seconds_(sum|count)\{step="([a-z-]+)"\} ([0-9.e+-]+)$', re.M)


def steps(server: Server) -> dict:
    """The server's step timers (`disposable_ingest_step_seconds`) so far: {step: [seconds, count]}."""
    text = server.client().call("GET", "/metrics").decode()
    found = {}
    for kind, step, value in STEP.findall(text):
        found.setdefault(step, [0.0, 0])[0 if kind == "sum" else 1] = float(value)
    return found


def compare(server: Server, paths: list[str], runs: int = 5, reference_rate=None, clients: int = 4, first_looks: bool = False) -> dict:
    """PERF-1 as pairs: a pyvips run, then a Disposable run, `runs` times. The VM's speed drifts by 20-30 % within
    minutes; all of one side and then all of the other put that drift into the ratio, pairs put it in each pair.
    Also the server's CPU per photo (its setup for each run, two bcrypt hashes, included). `reference_rate` measures
    the other side (default: pyvips from the wheel, here). `clients` uploaders at once; `first_looks`: each photo
    with the phone's first look (made before the runs)."""
    pairs = []
    looks = [first_look(path) for path in paths] if first_looks else None
    steps_before = steps(server)
    for _ in range(runs):
        rate = reference_rate(paths) if reference_rate else reference(paths, pyvips_derivatives)
        before = server_cpu_seconds(server)
        run = disposable(server, paths, clients=clients, first_looks=looks)
        run["cpu_ms_per_photo"] = (server_cpu_seconds(server) - before) / len(paths) * 1000
        pairs.append((run, rate))
    by_rate = sorted(pairs, key=lambda pair: pair[0]["photos_per_s"])
    ratios = sorted(run["photos_per_s"] / rate for run, rate in pairs)
    steps_after = steps(server)
    mean_ms = {}
    for step, (seconds, count) in steps_after.items():
        seconds_before, count_before = steps_before.get(step, [0.0, 0])
        mean_ms[step] = (seconds - seconds_before) / max(1, count - count_before) * 1000
    return {
        "clients": clients,
        "steps_ms": mean_ms,
        "median": by_rate[len(by_rate) // 2][0],
        "rates": sorted(run["photos_per_s"] for run, _ in pairs),
        "pyvips": sorted(rate for _, rate in pairs),
        "ratios": ratios,
        "cpu_ms": sorted(run["cpu_ms_per_photo"] for run, _ in pairs),
    }


def describe(result: dict, reference: str = "pyvips 8.18") -> str:
    """One line: Disposable's and pyvips' medians and ranges, the ratio of the medians, and each pair's."""
    def spread(values, digits=1):
        return f"{values[len(values) // 2]:.{digits}f} ({values[0]:.{digits}f}-{values[-1]:.{digits}f})"
    median = result["median"]
    disposable_median = result["rates"][len(result["rates"]) // 2]
    pyvips_median = result["pyvips"][len(result["pyvips"]) // 2]
    return (f"{spread(result['rates'])} photos/s over HTTP until ready (median run: acknowledged after "
            f"{median['acknowledged_s']:.1f} s, ready after {median['ready_s']:.1f} s; server CPU "
            f"{spread(result['cpu_ms'], 0)} ms a photo) | {reference} {spread(result['pyvips'])}/s -> "
            f"{disposable_median / pyvips_median:.2f}x (pairs {spread(result['ratios'], 2)}x) | steps, mean ms a photo "
            f"(wall clock, {result.get('clients', 4)} uploads at once): " + ", ".join(f"{step} {result['steps_ms'][step]:.1f}" for step in STEPS if step in result["steps_ms"]))
