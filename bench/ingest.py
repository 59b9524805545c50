"""PERF-1: 12 MP photos uploaded over HTTP until every one is ready, against pyvips and Pillow making
just the two derivatives from the same files on the same cores (no HTTP, no storage, no database)."""
import concurrent.futures
import io
import multiprocessing
import os
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


def disposable(server: Server, paths: list[str], clients: int = 4) -> dict:
    """photos/s from the first byte sent to the last photo ready, with `clients` concurrent uploaders
    (each a guest of one event); the event and tokens are returned for the benchmarks that follow."""
    token, event = organizer_and_event(server, shotsPerGuest=1000)
    guests = [join(server, event["code"], f"Guest {n}") for n in range(clients)]
    blobs = [open(path, "rb").read() for path in paths]
    lock = threading.Lock()
    queue = list(range(len(paths)))

    def uploader(guest: str):
        client = server.client()
        while True:
            with lock:
                if not queue:
                    return
                index = queue.pop(0)
            client.call("POST", f"/api/v1/events/{event['id']}/photos", blobs[index], token=guest, content_type="image/jpeg")

    start = time.perf_counter()
    threads = [threading.Thread(target=uploader, args=(guest,)) for guest in guests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    all_acknowledged = time.perf_counter()
    watcher = server.client()
    while True:
        items = watcher.call("GET", f"/api/v1/events/{event['id']}/photos?limit=100", token=token)["items"]
        if len(items) == len(paths) and all(item["status"] == "ready" for item in items):
            break
        if any(item["status"] == "failed" for item in items):
            raise RuntimeError("a photo failed to process")
        time.sleep(0.02)
    done = time.perf_counter()
    return {"photos_per_s": len(paths) / (done - start), "acknowledged_s": all_acknowledged - start, "ready_s": done - start,
            "token": token, "event": event, "guest": guests[0], "photo_ids": [item["id"] for item in items]}
