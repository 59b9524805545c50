#!/usr/bin/env python3
"""The image people run, run as they would: started with podman on loopback, checked over HTTP.

    python3 Tests/container/test_container.py IMAGE

Run by scripts/test-container, which builds IMAGE and exports PODMAN (the podman command line for this machine) and,
for the last check, DISPOSABLE_TEST_POSTGRES_URL and DISPOSABLE_TEST_S3_ENDPOINT.
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from ports import free_port  # noqa: E402

IMAGE = sys.argv[1]
PODMAN = shlex.split(os.environ.get("PODMAN", "podman"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = tempfile.mkdtemp(prefix="disposable-container-")
ADMIN = {"email": "admin@container.test", "password": "container admin password", "name": "Admin"}
started = []  # containers and volumes to remove at the end, whatever happens
failures = []


def podman(*args, check=True, capture=True) -> str:
    result = subprocess.run(PODMAN + list(args), capture_output=capture, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
    return (result.stdout or "").strip()


def check(condition: bool, what: str):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)



class Container:
    """One `podman run -d` of the image on the host's network, its data on a named volume."""

    def __init__(self, volume: str, *options: str, env: dict | None = None):
        self.port = free_port()
        self.name = f"disposable-test-{uuid.uuid4().hex[:8]}"
        self.base = f"http://127.0.0.1:{self.port}"
        environment = {"DISPOSABLE_PORT": str(self.port), "DISPOSABLE_PUBLIC_URL": self.base, **(env or {})}
        arguments = ["run", "-d", "--name", self.name, "--network=host", "-v", f"{volume}:/var/lib/disposable/data", *options]
        for key, value in environment.items():
            arguments += ["-e", f"{key}={value}"]
        started.append(("container", self.name))
        podman(*arguments, IMAGE)

    def wait_healthy(self, timeout: float = 90) -> float:
        """Seconds until the image's own HEALTHCHECK command passes (run on demand: no systemd timers here)."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if subprocess.run(PODMAN + ["healthcheck", "run", self.name], capture_output=True).returncode == 0:
                return time.monotonic() - start
            if podman("inspect", "-f", "{{.State.Running}}", self.name) != "true":
                raise RuntimeError(f"the container stopped:\n{self.logs()[-3000:]}")
            time.sleep(0.5)
        raise RuntimeError(f"not healthy after {timeout} s:\n{self.logs()[-3000:]}")

    def logs(self) -> str:
        """What the server printed (podman keeps stdout and stderr apart)."""
        result = subprocess.run(PODMAN + ["logs", self.name], capture_output=True, text=True)
        return result.stdout + result.stderr

    def stop(self) -> tuple[float, int]:
        """SIGTERM (the image's STOPSIGNAL), SIGKILL after 10 s as `docker stop` does: (seconds, exit code)."""
        start = time.monotonic()
        podman("stop", "-t", "10", self.name)
        seconds = time.monotonic() - start
        return seconds, int(podman("inspect", "-f", "{{.State.ExitCode}}", self.name))

    def remove(self):
        podman("rm", "-f", self.name, check=False)

    def call(self, method: str, path: str, body=None, token: str | None = None, content_type: str = "application/json",
             headers: dict | None = None, expect=(200, 201)):
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, method=method, data=data, headers=headers or {})
        if data is not None:
            request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                status, payload, kind = response.status, response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            status, payload, kind = error.code, error.read(), error.headers.get("Content-Type", "")
        if status not in expect:
            raise RuntimeError(f"{method} {path} answered {status}: {payload[:300]!r}")
        return json.loads(payload) if "json" in kind and payload else payload


def volume() -> str:
    name = f"disposable-test-{uuid.uuid4().hex[:8]}"
    podman("volume", "create", name)
    started.append(("volume", name))
    return name


def files_in(volume_name: str) -> dict:
    """Every regular file on the volume (path → sha256), read from the host side."""
    root = podman("volume", "inspect", "-f", "{{.Mountpoint}}", volume_name)
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return found


# ---- what a newcomer does -------------------------------------------------------------------------------------

def claim(container: Container) -> str:
    """The admin from the setup code in the container's log, through the first-run page; returns a session token."""
    deadline = time.monotonic() + 30
    code = None
    while code is None and time.monotonic() < deadline:
        found = re.search(r"enter the setup code ([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})", container.logs())
        code = found and found.group(1)
        time.sleep(0.2)
    check(code is not None, "the setup code is in the container's log")
    form = urllib.parse.urlencode({**ADMIN, "code": code}).encode()
    container.call("POST", "/setup", form, content_type="application/x-www-form-urlencoded", headers={"Origin": container.base},
                   expect=(201,))
    return sign_in(container)


def sign_in(container: Container) -> str:
    return container.call("POST", "/api/v1/sessions", {"email": ADMIN["email"], "password": ADMIN["password"]})["token"]


def event_with_guest(container: Container, token: str) -> tuple[str, str]:
    event = container.call("POST", "/api/v1/events", {"name": "Container wedding", "shotsPerGuest": 20, "allowVideos": True},
                           token=token)
    guest = container.call("POST", "/api/v1/join", {"code": event["code"], "name": "Maggie", "acceptedTerms": "2026-11"})["token"]
    return event["id"], guest


def upload(container: Container, event_id: str, guest: str, path: str, content_type: str) -> str:
    with open(path, "rb") as f:
        return container.call("POST", f"/api/v1/events/{event_id}/photos", f.read(), token=guest, content_type=content_type,
                              headers={"X-Photo-Source": "camera"})["id"]


def wait_ready(container: Container, photo_id: str, token: str, timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        photo = container.call("GET", f"/api/v1/photos/{photo_id}", token=token)
        if photo["status"] != "processing":
            return photo
        time.sleep(0.25)
    raise RuntimeError(f"photo {photo_id} still processing after {timeout} s")


def served(container: Container, photo: dict, token: str) -> dict:
    """sha256 of every file the photo's links serve (original, preview, thumbnail, video)."""
    return {kind: hashlib.sha256(container.call("GET", url, token=token)).hexdigest()
            for kind, url in sorted(photo["urls"].items()) if url}


def dimensions(jpeg: bytes) -> tuple[int, int]:
    path = os.path.join(WORK, "served.jpg")
    with open(path, "wb") as f:
        f.write(jpeg)
    return tuple(int(subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True, check=True).stdout)
                 for field in ("width", "height"))


def media(kind: str) -> str:
    """The test corpus, made on the host: two 12 MP JPEGs with EXIF, the first as an iPhone-style HEIC (HEVC), 3 s of
    video."""
    path = os.path.join(WORK, {"jpeg": "photo.jpg", "another": "another.jpg", "heic": "photo.heic", "video": "clip.mp4"}[kind])
    if os.path.exists(path):
        return path
    if kind in ("jpeg", "another"):
        noise = os.path.join(WORK, "noise.v")
        subprocess.run(["vips", "gaussnoise", noise, "4032", "3024", "--mean", "128", "--sigma", "60",
                        "--seed", str(len(kind))], check=True)
        subprocess.run(["vips", "copy", noise, f"{path}[Q=85]"], check=True)
        subprocess.run(["exiftool", "-q", "-overwrite_original", "-Orientation#=6", "-DateTimeOriginal=2026:06:20 18:30:00",
                        "-OffsetTimeOriginal=+02:00", path], check=True)
    elif kind == "heic":
        subprocess.run(["vips", "copy", media("jpeg"), f"{path}[compression=hevc,Q=60]"], check=True)
    else:
        subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi",
                        "-i", "sine=frequency=440", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", path],
                       check=True)
    return path


def main():
    print(f"image {IMAGE}: {podman('image', 'inspect', '-f', '{{.Size}}', IMAGE)} bytes", flush=True)
    began = time.monotonic()

    # 1. First start on an empty volume: healthy by its own HEALTHCHECK, claimed with the logged setup code.
    data = volume()
    first = Container(data)
    seconds = first.wait_healthy()
    check(True, f"healthy by the image's HEALTHCHECK after {seconds:.1f} s")
    admin = claim(first)
    event_id, guest = event_with_guest(first, admin)

    # 2. A JPEG, an iPhone-style HEIC and a short video, rendered inside the container (libvips 8.16, libheif, ffmpeg).
    photos = {}
    for kind, content_type in (("jpeg", "image/jpeg"), ("heic", "image/heic"), ("video", "application/octet-stream")):
        photo = wait_ready(first, upload(first, event_id, guest, media(kind), content_type), guest)
        check(photo["status"] == "ready", f"{kind}: rendered in the container ({photo['status']})")
        if kind != "video":
            preview = first.call("GET", photo["urls"]["preview"], token=guest)
            width, height = dimensions(preview)
            # The JPEG's EXIF orientation (6: turned right) applied: its landscape sensor image is a portrait preview.
            # (HEIF turns pictures with its own `irot` box, which this file has not: it stays landscape.)
            turned = height > width if kind == "jpeg" else width > height
            check(preview[:3] == b"\xff\xd8\xff" and max(width, height) == 1600 and turned,
                  f"{kind}: a JPEG preview {width}×{height}, turned as the file says")
        photos[photo["id"]] = served(first, photo, guest)

    # 3. SIGTERM with a photo acknowledged but not yet rendered: graceful within 10 s, and nothing lost.
    late = upload(first, event_id, guest, media("another"), "image/jpeg")
    seconds, code = first.stop()
    check(seconds < 10 and code == 0, f"stopped by SIGTERM in {seconds:.1f} s, exit code {code}")
    before = {path: digest for path, digest in files_in(data).items() if path.startswith("media/")}
    first.remove()

    # 4. Started again on the same volume: every photo served byte for byte, every file as it was, the late one rendered.
    again = Container(data)
    again.wait_healthy()
    check("setup code" not in again.logs(), "no setup code on the second start: the admin exists")
    admin = sign_in(again)
    kept = {photo_id: served(again, again.call("GET", f"/api/v1/photos/{photo_id}", token=admin), admin) for photo_id in photos}
    check(kept == photos, f"after a restart, {len(photos)} posts served byte for byte as before")
    after = files_in(data)
    check(all(after.get(path) == digest for path, digest in before.items()),
          f"the {len(before)} media files on the volume unchanged")
    check(wait_ready(again, late, admin)["status"] == "ready", "the photo sent just before SIGTERM is there and rendered")
    # What README says to do before an upgrade: the backup command inside the running container.
    podman("exec", again.name, "/opt/disposable/disposable", "backup", "--to", "/tmp/backup")
    copied = podman("exec", again.name, "ls", "/tmp/backup").split()
    check("backup.json" in copied, f"a backup made inside the running container ({', '.join(copied)})")
    again.stop()
    again.remove()

    # 5. A read-only root file system, temporary files on a tmpfs: it still starts, takes photos, renders them.
    sealed = Container(volume(), "--read-only", "--tmpfs", "/tmp")
    sealed.wait_healthy()
    admin = claim(sealed)
    event_id, guest = event_with_guest(sealed, admin)
    for kind, content_type in (("jpeg", "image/jpeg"), ("video", "application/octet-stream")):
        status = wait_ready(sealed, upload(sealed, event_id, guest, media(kind), content_type), guest)["status"]
        check(status == "ready", f"read-only root: {kind} rendered")
    sealed.stop()
    sealed.remove()

    # 6. PostgreSQL and an S3 bucket (moto) on the host: nothing is stored on the container's volume.
    postgres, s3 = os.environ.get("DISPOSABLE_TEST_POSTGRES_URL"), os.environ.get("DISPOSABLE_TEST_S3_ENDPOINT")
    if postgres and s3:
        database = f"container_{uuid.uuid4().hex[:8]}"
        subprocess.run(["psql", "-q", postgres, "-c", f"CREATE DATABASE {database}"], check=True)
        bucket = f"container-{uuid.uuid4().hex[:8]}"
        urllib.request.urlopen(urllib.request.Request(f"{s3}/{bucket}", method="PUT"), timeout=30).read()
        empty = volume()
        scaled = Container(empty, env={
            "DISPOSABLE_DATABASE_URL": postgres.rsplit("/", 1)[0] + "/" + database, "DISPOSABLE_STORAGE_URL": f"s3://{bucket}",
            "DISPOSABLE_S3_ENDPOINT": s3, "DISPOSABLE_S3_PATH_STYLE": "true",
            "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"})
        scaled.wait_healthy()
        admin = claim(scaled)
        event_id, guest = event_with_guest(scaled, admin)
        for kind, content_type in (("jpeg", "image/jpeg"), ("heic", "image/heic"), ("video", "application/octet-stream")):
            status = wait_ready(scaled, upload(scaled, event_id, guest, media(kind), content_type), guest)["status"]
            check(status == "ready", f"PostgreSQL + S3: {kind} rendered")
        listing = urllib.request.urlopen(f"{s3}/{bucket}?list-type=2", timeout=30).read().decode()
        check(listing.count("<Key>") >= 3, f"PostgreSQL + S3: {listing.count('<Key>')} objects in the bucket")
        scaled.stop()
        left = files_in(empty)
        check(not left, f"PostgreSQL + S3: nothing stored on the volume ({sorted(left)[:5]})")
        scaled.remove()
    else:
        check(False, "PostgreSQL + S3: DISPOSABLE_TEST_POSTGRES_URL and DISPOSABLE_TEST_S3_ENDPOINT are set")

    print(f"container checks took {time.monotonic() - began:.0f} s", flush=True)


try:
    main()
except Exception as error:  # a step that could not run is a failure with its reason, and the cleanup still runs
    failures.append(f"{type(error).__name__}: {error}")
    print(f"FAIL {failures[-1]}", flush=True)
finally:
    for kind, name in reversed(started):
        podman(kind, "rm", "-f", name, check=False)
if failures:
    print(f"{len(failures)} container check(s) failed", flush=True)
    sys.exit(1)
print("container: every check passed", flush=True)
