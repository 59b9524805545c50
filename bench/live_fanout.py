#!/usr/bin/env python3
"""PERF-4: live fan-out. Connects N Server-Sent-Events subscribers (each a guest) to one event,
uploads photos, and reports the delay from "upload acknowledged" to "photo-added received", per
subscriber and for the last subscriber of each photo, plus the server's resident memory.

Usage: bench/live_fanout.py --server http://127.0.0.1:8090 --pid PID [--subscribers 1000] [--photos 20]
(scripts/bench-live starts a release server and runs this.)"""
import argparse, asyncio, json, statistics, time, urllib.request, uuid


def api(base, method, path, body=None, token=None, raw=None, content_type="application/json"):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"{}")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def subscribe(host, port, event_id, token, ready, received):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write((f"GET /api/v1/events/{event_id}/changes HTTP/1.1\r\nHost: {host}\r\n"
                  f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
    await writer.drain()
    ready_sent = False
    buffer = b""
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            return
        now = time.monotonic()
        if not ready_sent:
            ready.release()
            ready_sent = True
        buffer += chunk
        for line in buffer.split(b"\n"):
            # The chunked framing does not matter: data lines are found wherever they are.
            if line.startswith(b"data: {") and b'"photo-added"' in line:
                try:
                    photo = json.loads(line[6:])["photo"]["id"]
                except (ValueError, KeyError):
                    continue
                received.setdefault(photo, []).append(now)
        buffer = buffer[buffer.rfind(b"\n") + 1:]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--photos", type=int, default=20)
    parser.add_argument("--photo", default="bench/data/photo.jpg")
    args = parser.parse_args()
    base = args.server
    host, port = base.split("//")[1].split(":")

    email = f"bench-{uuid.uuid4().hex[:8]}@example.com"
    api(base, "POST", "/api/v1/users", {"email": email, "password": "benchmark password"})
    organizer = api(base, "POST", "/api/v1/sessions", {"email": email, "password": "benchmark password"})["token"]
    event = api(base, "POST", "/api/v1/events", {"name": "Fan-out", "shotsPerGuest": 1000}, organizer)
    tokens = [api(base, "POST", "/api/v1/join", {"code": event["code"], "name": f"Guest {i}"})["token"]
              for i in range(args.subscribers)]
    idle_rss = rss_kib(args.pid)

    ready = asyncio.Semaphore(0)
    received = {}
    tasks = [asyncio.create_task(subscribe(host, int(port), event["id"], token, ready, received)) for token in tokens]
    for _ in tokens:
        await ready.acquire()
    await asyncio.sleep(1)
    subscribed_rss = rss_kib(args.pid)

    photo = open(args.photo, "rb").read()
    acknowledged = {}
    for index in range(args.photos):
        body = photo + f"bench {uuid.uuid4()}".encode()  # a distinct file each time (bytes after the JPEG's end)
        uploaded = await asyncio.to_thread(api, base, "POST", f"/api/v1/events/{event['id']}/photos",
                                           None, organizer, body, "image/jpeg")
        acknowledged[uploaded["id"]] = time.monotonic()
        await asyncio.sleep(0.5)
    await asyncio.sleep(3)
    for task in tasks:
        task.cancel()

    each, last, missing = [], [], 0
    for photo_id, ack in acknowledged.items():
        times = received.get(photo_id, [])
        missing += args.subscribers - len(times)
        delays = [max(0.0, t - ack) * 1000 for t in times]
        each += delays
        if delays:
            last.append(max(delays))
    print(f"subscribers={args.subscribers} photos={args.photos} missing_deliveries={missing}")
    print(f"delay_ms_each p50={percentile(each, 50):.1f} p99={percentile(each, 99):.1f} max={max(each):.1f}")
    print(f"delay_ms_all_received p50={percentile(last, 50):.1f} p99={percentile(last, 99):.1f}")
    print(f"rss_mib idle={idle_rss / 1024:.1f} with_subscribers={subscribed_rss / 1024:.1f}")


asyncio.run(main())
