"""PERF-7 "event night": a wedding on one 2-core box. Guests each hold a live stream and shoot in a burst faster
than photos can be rendered, while others page through the gallery and a venue wall follows its feed.

Reports upload acknowledgement p50/p99, the time from acknowledgement until every stream (all shooters' and
the wall's) has heard `photo-ready` p50/p99, when the previews were all done (a `photo-updated` that no longer
says `previewPending`, or a `photo-ready` that never did), the drain rate, gallery p99 during the burst, errors,
the server's peak RSS, and where the two cores went (server, load generator, moto, the rest). The load generator
shares the cores with the server: the figures are for the whole box, as on the night. It is three processes: the
streams in this one, the viewers and the shooters each in one of their own (`Phones`), which also report how late
their own event loop wakes.

Usage (from scripts/bench-event-night): event_night.py [--postgres URL --s3 URL --moto-pid FILE] [--guests 300]
    [--viewers 300] [--photos 900] [--seconds 60] [--before DIR] [--picture SVG] [--first-looks]
--before DIR: a release build of the code before a change (its `disposable`), run on each stack just before this
one, in the same sitting. --first-looks: each stack also with every photo sent as phones send it, in a form beside
the phone's own 640 px JPEG (made beforehand, as phones make theirs before they send), right after (with --before,
the earlier build's night with first looks just before it)."""
import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import resource
import time
import uuid

from common import BINARY, ROOT, WORK, Server, organizer_and_event
from ingest import first_look, form, steps
from night_picture import picture
from photos import generate

PHOTO_CHANGE = re.compile(rb'event: (photo-ready|photo-updated)\ndata: ([^\n]*)')
# The photo's own id: the first "id" key of its JSON (sorted keys; "eventId" and the shooter's fields come before
# or are named otherwise). Read without parsing the JSON: 300 streams hear every change, and the load generator's
# CPU is taken from the server's two cores.
PHOTO_ID = re.compile(rb'"id":"([^"]+)"')
TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int | None) -> float:
    """A process's CPU seconds so far (user + system), 0 when there is none."""
    if not pid:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        return 0.0


def machine_cpu() -> float:
    """CPU seconds all cores have been busy so far (everything but idle and iowait)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:8]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Connection:
    """A keep-alive HTTP/1.1 connection (asyncio streams): small, so that hundreds of them stay cheap."""

    def __init__(self, port: int):
        self.port = port
        self.reader = self.writer = None

    async def call(self, method: str, path: str, token: str | None = None, body: bytes | None = None,
                   content_type: str = "application/json") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        self.writer.write((head + "\r\n").encode())
        if body is not None:
            self.writer.write(body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, chunked, close = 0, False, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and "close" in value.lower():
                close = True
        if chunked:
            data = b""
            while (size := int((await self.reader.readline()).split(b";")[0], 16)) > 0:
                data += await self.reader.readexactly(size + 2)
                data = data[:-2]
            await self.reader.readline()
        else:
            data = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, data

    def close(self):
        if self.writer:
            self.writer.close()
        self.reader = self.writer = None


async def json_call(port: int, method: str, path: str, body=None, token=None) -> dict:
    connection = Connection(port)
    status, data = await connection.call(method, path, token, json.dumps(body).encode() if body is not None else None)
    connection.close()
    if status not in (200, 201):
        raise RuntimeError(f"{method} {path} answered {status}: {data[:200]!r}")
    return json.loads(data)


class Phones:
    """A group of phones in a process of its own — the viewers paging, or the shooters — so that what it times does
    not include the 301 streams' parsing: a photo-ready heard by every stream at once kept the one event loop busy
    for tens of milliseconds, and every gallery page or acknowledgement that arrived meanwhile was counted late."""

    def __init__(self, port: int, burst, done):
        self.port, self.burst, self.done = port, burst, done
        self.timings: list[float] = []
        self.lag_ms: list[float] = []
        self.errors: dict[str, int] = {}
        self.cpu_in_burst = 0.0

    def error(self, kind: str):
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def sample_lag(self):
        """How late this process's event loop wakes a 10 ms sleep during the burst (its own queueing, which every
        timing it takes includes), and its CPU over the burst."""
        while not self.burst.is_set():
            await asyncio.sleep(0.01)
        cpu_start = own_cpu()
        while self.burst.is_set() and not self.done.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lag_ms.append((time.perf_counter() - start - 0.01) * 1000)
        self.cpu_in_burst = own_cpu() - cpu_start

    async def view(self, event: str, token: str):
        """A guest paging through the gallery: the first page, sometimes the next, every one to three seconds."""
        connection = Connection(self.port)
        while not self.done.is_set():
            cursor = ""
            for _ in range(random.choice((1, 1, 2, 3))):
                start = time.perf_counter()
                try:
                    status, data = await connection.call("GET", f"/api/v1/events/{event}/photos?limit=50{cursor}", token)
                except (ConnectionError, asyncio.IncompleteReadError):
                    self.error("gallery connection")
                    connection.close()
                    break
                if self.burst.is_set():
                    self.timings.append((time.perf_counter() - start) * 1000)
                if status != 200:
                    self.error(f"gallery {status}")
                    break
                next_cursor = json.loads(data).get("nextCursor")
                if not next_cursor:
                    break
                cursor = f"&cursor={next_cursor}"
            await asyncio.sleep(random.uniform(1, 3))
        connection.close()

    async def viewers(self, event: str, tokens: list[str]) -> dict:
        lag = asyncio.create_task(self.sample_lag())
        await asyncio.gather(*(self.view(event, token) for token in tokens))
        await lag
        return {"gallery_ms": self.timings, "errors": self.errors, "lag_ms": self.lag_ms, "cpu": self.cpu_in_burst}

    async def shoot(self, event: str, token: str, body: bytes, content_type: str, acknowledged: dict):
        connection = Connection(self.port)
        start = time.perf_counter()
        try:
            status, data = await connection.call("POST", f"/api/v1/events/{event}/photos", token, body, content_type)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.error("upload connection")
            return
        finally:
            connection.close()
        now = time.perf_counter()
        if status != 201:
            self.error(f"upload {status}")
            return
        self.timings.append((now - start) * 1000)
        acknowledged[json.loads(data)["id"]] = now

    async def shooters(self, event: str, tokens: list[str], paths: list[str], looks: list[bytes] | None, photos: int,
                       seconds: float, start: float) -> dict:
        """The burst: photo i leaves at start + i × seconds / photos, each guest in turn, each on a connection of its own."""
        blobs = [open(path, "rb").read() for path in paths]
        lag = asyncio.create_task(self.sample_lag())
        acknowledged: dict[str, float] = {}
        uploads = []
        for index in range(photos):
            await asyncio.sleep(max(0.0, start + index * seconds / photos - time.perf_counter()))
            body = blobs[index % len(blobs)] + f"event night {uuid.uuid4()}".encode()  # distinct bytes after the JPEG's end
            body, content_type = form(body, looks[index % len(looks)]) if looks else (body, "image/jpeg")
            uploads.append(asyncio.create_task(self.shoot(event, tokens[index % len(tokens)], body, content_type, acknowledged)))
        await asyncio.gather(*uploads)
        self.done.set()  # the sampler's end: the shooters' part of the burst is over
        await lag
        return {"ack_ms": self.timings, "acknowledged": acknowledged, "errors": self.errors, "lag_ms": self.lag_ms,
                "cpu": self.cpu_in_burst}


def phones(role: str, port: int, burst, done, results, *arguments):
    """A process's entry: run one group of phones and send back what it measured."""
    group = Phones(port, burst, done)
    results.put(asyncio.run(group.viewers(*arguments) if role == "viewers" else group.shooters(*arguments)))


class Night:
    def __init__(self, server: Server, args, moto_pid: int | None):
        self.server, self.args, self.moto_pid = server, args, moto_pid
        self.heard: dict[str, int] = {}          # photo id -> streams that heard it ready
        self.visible_at: dict[str, float] = {}   # photo id -> when the last stream did
        self.previewed_at: dict[str, float] = {}  # photo id -> when the first shooter's stream heard its preview
        self.acknowledged: dict[str, float] = {}
        self.ack_ms: list[float] = []
        self.gallery_ms: list[float] = []
        self.errors: dict[str, int] = {}
        self.streams = 0
        self.peak_rss = 0

    def error(self, kind: str):
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def follow(self, path: str, token: str | None, opened: asyncio.Event, watch_previews: bool = False):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.server.port)
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        writer.write((head + (f"Authorization: Bearer {token}\r\n" if token else "") + "\r\n").encode())
        await writer.drain()
        self.streams += 1
        if self.streams == self.args.guests + 1:
            opened.set()
        buffer = b""
        try:
            while chunk := await reader.read(65536):
                buffer += chunk
                cut = buffer.rfind(b"\n\n")
                if cut < 0:
                    continue
                now = time.perf_counter()
                for match in PHOTO_CHANGE.finditer(buffer, 0, cut):
                    data = match.group(2)
                    photo = PHOTO_ID.search(data).group(1).decode()
                    if match.group(1) == b"photo-ready":
                        self.heard[photo] = self.heard.get(photo, 0) + 1
                        if self.heard[photo] == self.args.guests + 1:
                            self.visible_at[photo] = now
                    # Made in one go (before the two phases), the preview comes with photo-ready.
                    if watch_previews and b'"previewPending":true' not in data and photo not in self.previewed_at:
                        self.previewed_at[photo] = now
                buffer = buffer[cut + 2:]
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
        if not self.done.is_set():
            self.error("stream closed")

    async def sample_rss(self):
        while not self.done.is_set():
            self.peak_rss = max(self.peak_rss, self.server.rss_kib())
            await asyncio.sleep(0.2)

    async def run(self, paths: list[str], looks: list[bytes] | None = None) -> dict:
        args = self.args
        self.done = asyncio.Event()
        token, event = organizer_and_event(self.server, shotsPerGuest=max(1, -(-args.photos // args.guests)) + 1)
        port = self.server.port
        joins = asyncio.Semaphore(16)

        async def join(name: str) -> str:
            async with joins:
                joined = await json_call(port, "POST", "/api/v1/join", {"code": event["code"], "name": name, "acceptedTerms": "2026-11"})
                return joined["token"]

        shooters = await asyncio.gather(*(join(f"Shooter {n}") for n in range(args.guests)))
        viewers = await asyncio.gather(*(join(f"Viewer {n}") for n in range(args.viewers)))
        wall = (await json_call(port, "POST", f"/api/v1/events/{event['id']}/wall", token=token))["url"].split("/w/")[-1]
        idle_rss = self.server.rss_kib()

        opened = asyncio.Event()
        background = [asyncio.create_task(self.follow(f"/api/v1/events/{event['id']}/changes", guest, opened, index == 0))
                      for index, guest in enumerate(shooters)]
        background.append(asyncio.create_task(self.follow(f"/api/v1/walls/{wall}/changes", None, opened)))
        await asyncio.wait_for(opened.wait(), 60)
        background.append(asyncio.create_task(self.sample_rss()))
        # The viewers and the shooters each in a process of their own (`Phones`); this one holds the streams.
        processes = multiprocessing.get_context("spawn")
        burst, viewers_done, shooters_done = processes.Event(), processes.Event(), processes.Event()
        viewed, shot = processes.Queue(), processes.Queue()
        start = time.perf_counter() + 5  # the viewers settle into their rhythm; the shooters read their photos
        groups = [processes.Process(target=phones, args=("viewers", port, burst, viewers_done, viewed, event["id"], viewers)),
                  processes.Process(target=phones, args=("shooters", port, burst, shooters_done, shot, event["id"], shooters,
                                                          paths, looks, args.photos, args.seconds, start))]
        for group in groups:
            group.start()
        await asyncio.sleep(max(0.0, start - time.perf_counter()))

        steps_before = steps(self.server)
        served_before = gallery_served(self.server)
        cpu_before = (machine_cpu(), process_cpu(self.server.pid), own_cpu(), process_cpu(self.moto_pid))
        burst.set()
        # Bounded: a group that died never answers, and the night must fail rather than wait.
        shooting = await asyncio.to_thread(shot.get, timeout=args.seconds + 900)
        self.acknowledged = shooting["acknowledged"]
        acknowledged_after = time.perf_counter() - start
        deadline = time.perf_counter() + 900
        while time.perf_counter() < deadline and any(
                photo not in self.visible_at or photo not in self.previewed_at for photo in self.acknowledged):
            await asyncio.sleep(0.1)
        ended = time.perf_counter()
        burst.clear()
        viewers_done.set()
        viewing = await asyncio.to_thread(viewed.get, timeout=120)
        for group in groups:
            group.join()
        cpu_after = (machine_cpu(), process_cpu(self.server.pid), own_cpu(), process_cpu(self.moto_pid))
        steps_after = steps(self.server)
        served_after = gallery_served(self.server)
        self.done.set()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        self.ack_ms, self.gallery_ms = shooting["ack_ms"], viewing["gallery_ms"]
        for kind, count in list(shooting["errors"].items()) + list(viewing["errors"].items()):
            self.errors[kind] = self.errors.get(kind, 0) + count

        visible_s = [self.visible_at[p] - acked for p, acked in self.acknowledged.items() if p in self.visible_at]
        previewed = [self.previewed_at[p] for p in self.acknowledged if p in self.previewed_at]
        machine, server, generator, moto = (after - before for after, before in zip(cpu_after, cpu_before))
        generator += viewing["cpu"] + shooting["cpu"]
        step_ms = {}
        for step, (seconds, count) in steps_after.items():
            seconds_before, count_before = steps_before.get(step, [0.0, 0])
            if count > count_before:
                step_ms[step] = (seconds - seconds_before) / (count - count_before) * 1000
        return {
            "acknowledged": len(self.acknowledged), "acknowledged_after_s": acknowledged_after,
            "everyone_after_s": max(self.visible_at.values(), default=start) - start,
            "previews_after_s": max(previewed, default=start) - start,
            "drain_per_s": len(previewed) / max(1e-9, max(previewed, default=start) - start),
            "never_visible": len(self.acknowledged) - len(visible_s), "never_previewed": len(self.acknowledged) - len(previewed),
            "ack_p50_ms": percentile(self.ack_ms, 50), "ack_p99_ms": percentile(self.ack_ms, 99),
            "visible_p50_s": percentile(visible_s, 50), "visible_p99_s": percentile(visible_s, 99),
            "gallery_p99_ms": percentile(self.gallery_ms, 99), "gallery_p50_ms": percentile(self.gallery_ms, 50),
            "gallery_reads": len(self.gallery_ms), "errors": dict(self.errors),
            "lag_p99_ms": {"viewers": percentile(viewing["lag_ms"], 99), "shooters": percentile(shooting["lag_ms"], 99)},
            "gallery_served": served_share({le: served_after.get(le, 0) - served_before.get(le, 0) for le in served_after}),
            "idle_rss_mb": idle_rss / 1024, "peak_rss_mb": self.peak_rss / 1024,
            "cpu": {"seconds": ended - start, "machine": machine, "server": server, "generator": generator, "moto": moto},
            "steps_ms": step_ms,
            "timeline": {"acknowledged": sorted(t - start for t in self.acknowledged.values()),
                         "visible": sorted(t - start for t in self.visible_at.values()),
                         "previewed": sorted(t - start for t in previewed)},
        }


BUCKET = re.compile(r'^http_server_request_duration\w*_bucket\{(.*)\} (\S+)$', re.M)


def gallery_served(server) -> dict:
    """The server's own clock for gallery pages (Hummingbird's request timer, `GET /api/v1/events/{id}/photos`):
    cumulative count by bucket bound in seconds — what the load generator's queueing adds is not in it."""
    text = server.client().call("GET", "/metrics").decode()
    found = {}
    for labels, value in BUCKET.findall(text):
        fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        route = fields.get("http_route", "")
        if fields.get("http_request_method") == "GET" and route.startswith("/api/v1/events/") and route.endswith("/photos"):
            bound = float("inf") if fields["le"] == "+Inf" else float(fields["le"])
            found[bound] = found.get(bound, 0) + float(value)
    return found


def served_share(buckets: dict) -> dict:
    """From cumulative bucket counts: the share answered within 50 ms, and the bucket bound the p99 falls under."""
    total = buckets.get(float("inf"), 0)
    if not total:
        return {"within_50ms": 0.0, "p99_le_ms": None}
    p99 = next((bound for bound in sorted(buckets) if buckets[bound] >= 0.99 * total), float("inf"))
    return {"within_50ms": buckets.get(0.05, 0) / total, "p99_le_ms": None if p99 == float("inf") else round(p99 * 1000)}


def line(stack: str, result: dict, args) -> str:
    errors = sum(result["errors"].values()) + result["never_visible"] + result["never_previewed"]
    detail = f" ({result['errors']}, {result['never_visible']} never visible, {result['never_previewed']} never previewed)" if errors else ""
    cpu = result["cpu"]
    cores = lambda seconds: seconds / cpu["seconds"]
    rest = cpu["machine"] - cpu["server"] - cpu["generator"] - cpu["moto"]
    return (f"PERF-7 event night, {stack}: {args.guests} guests streaming + 1 wall, {result['acknowledged']}/{args.photos} photos "
            f"of 12 MP sent within {args.seconds} s (all acknowledged after {result['acknowledged_after_s']:.0f} s, visible to "
            f"everyone after {result['everyone_after_s']:.0f} s, every preview after {result['previews_after_s']:.0f} s: "
            f"{result['drain_per_s']:.1f} photos/s), {args.viewers} viewers paging | upload ack p50 "
            f"{result['ack_p50_ms']:.0f} ms, p99 {result['ack_p99_ms']:.0f} ms | ack -> visible to everyone p50 "
            f"{result['visible_p50_s']:.1f} s, p99 {result['visible_p99_s']:.1f} s | gallery during the burst p50 "
            f"{result['gallery_p50_ms']:.0f} ms, p99 {result['gallery_p99_ms']:.0f} ms ({result['gallery_reads']} pages; in the server "
            f"{result['gallery_served']['within_50ms'] * 100:.1f} % within 50 ms, p99 ≤ {result['gallery_served']['p99_le_ms']} ms) | "
            f"the viewers' and the shooters' own lag p99 {result['lag_p99_ms']['viewers']:.1f} and {result['lag_p99_ms']['shooters']:.1f} ms | "
            f"errors {errors}{detail} | RSS {result['idle_rss_mb']:.0f} MB idle -> peak {result['peak_rss_mb']:.0f} MB | "
            f"cores busy over {cpu['seconds']:.0f} s: {cores(cpu['machine']):.2f} (server {cores(cpu['server']):.2f}, load generator "
            f"{cores(cpu['generator']):.2f}, moto {cores(cpu['moto']):.2f}, the rest {cores(rest):.2f}) | steps, mean ms: "
            + ", ".join(f"{step} {ms:.0f}" for step, ms in result["steps_ms"].items()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres")
    parser.add_argument("--s3")
    parser.add_argument("--moto-pid")
    parser.add_argument("--guests", type=int, default=300)
    parser.add_argument("--viewers", type=int, default=300)
    parser.add_argument("--photos", type=int, default=900)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--before", help="a folder with the release build to compare with (its disposable)")
    parser.add_argument("--picture", help="where to draw the night (SVG)")
    parser.add_argument("--only-postgres", action="store_true", help="skip SQLite + folder (with --postgres and --s3)")
    parser.add_argument("--encryption", action="store_true", help="each night also with photos encrypted at rest, just after")
    parser.add_argument("--first-looks", action="store_true", help="each night also with the phones' first looks, just after")
    parser.add_argument("--only-first-looks", action="store_true", help="each night with the phones' first looks only (a bigger night)")
    args = parser.parse_args()
    paths = generate(os.path.join(WORK, "photos"), 40)
    looks = [first_look(path) for path in paths] if args.first_looks or args.only_first_looks else None
    stacks = [] if args.only_postgres else [("SQLite + folder", {})]
    moto_pid = int(open(args.moto_pid).read()) if args.moto_pid else None
    if args.postgres and args.s3:
        stacks.append(("PostgreSQL + S3 (moto)", "s3"))
    builds = ([("before", os.path.join(args.before, "disposable"))] if args.before else []) + [("after" if args.before else "", BINARY)]
    if args.encryption:
        # The same build, plain and then with a storage key: the cost of encryption at rest in one sitting.
        key = os.path.join(WORK, "storage.key")
        with open(key, "wb") as out:
            out.write(os.urandom(32))
        builds = [(name, binary, None, None) for name, binary in builds] + [("encrypted", BINARY, key, None)]
    else:
        builds = [(name, binary, None, None) for name, binary in builds]
    if looks:
        # With --before, the earlier build's night with first looks too, just before this one's.
        looked = [("before, first looks", builds[0][1], None, looks)] if args.before else []
        builds = ([] if args.only_first_looks else builds) + looked + [("first looks", BINARY, None, looks)]
    results = {}
    for stack, env in stacks:
        for build, binary, key, build_looks in builds:
            if env == "s3":
                # A database and a bucket of its own for each build: neither starts on the other's photos.
                bucket = f"night-{uuid.uuid4().hex[:12]}"
                import subprocess
                subprocess.run(["curl", "-sf", "-X", "PUT", f"{args.s3}/{bucket}"], check=True)
                database = f"night_{uuid.uuid4().hex[:12]}"
                subprocess.run(["psql", args.postgres, "-qc", f"CREATE DATABASE {database}"], check=True)
                environment = {
                    "DISPOSABLE_DATABASE_URL": args.postgres.rsplit("/", 1)[0] + "/" + database, "DISPOSABLE_STORAGE_URL": f"s3://{bucket}",
                    "DISPOSABLE_S3_ENDPOINT": args.s3, "DISPOSABLE_S3_PATH_STYLE": "true",
                    "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}
            else:
                environment = dict(env)
            if key:
                environment = {**environment, "DISPOSABLE_STORAGE_KEY_FILE": key}
            server = Server(port=8095, env=environment, binary=binary).start()
            try:
                result = asyncio.run(Night(server, args, moto_pid if env == "s3" else None).run(paths, build_looks))
            finally:
                server.stop()
            results[(stack, build)] = result
            text = line(f"{stack}{', ' + build if build else ''}", result, args)
            print(text, flush=True)
            with open(os.path.join(WORK, "summary.txt"), "a") as summary:
                summary.write(text + "\n")
    # Kept to draw again: `python3 -c 'import json, night_picture; …'` without running the night again.
    with open(os.path.join(WORK, "event-night.json"), "w") as out:
        json.dump({f"{stack}|{build}": result for (stack, build), result in results.items()}, out)
    if args.picture:
        with open(os.path.join(ROOT, args.picture), "w") as out:
            out.write(picture(results, args))
        print(f"The night drawn in {args.picture}", flush=True)


if __name__ == "__main__":
    main()
