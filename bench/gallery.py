"""PERF-2 (gallery API on a 10,000-photo event) and PERF-3 (thumbnails: Disposable vs nginx on the same files)."""
import os
import sqlite3
import subprocess
import tempfile
import time
import uuid

from common import WORK, Server, wrk


def seed_photos(server: Server, source_event: str, event_id: str, count: int, link_files: bool = False) -> None:
    """Adds `count` copies of `source_event`'s uploaded photos to `event_id`, straight in SQLite while the server is
    stopped: uploading 100,000 photos would only measure ingest again. With `link_files` each copy gets its files
    as hard links (a 2 GB event without 2 GB of disk)."""
    database = sqlite3.connect(os.path.join(server.data, "disposable.sqlite"))
    columns = [row[1] for row in database.execute("PRAGMA table_info(photos)")]
    sources = database.execute(f"SELECT {', '.join(columns)} FROM photos WHERE event_id = ? AND status = 'ready' AND byte_size < 10000000",
                               (source_event,)).fetchall()
    rows = []
    for n in range(count):
        row = dict(zip(columns, sources[n % len(sources)]))
        source_id = row["id"]
        row.update(id=uuid.uuid4().hex, event_id=event_id, sha256=uuid.uuid4().hex * 2, idempotency_key=None,
                   uploaded_at=row["uploaded_at"] - 1000 * (n + 1), taken_at=row["taken_at"] - 1000 * (n + 1))
        if link_files:
            events = os.path.join(server.data, "media", "events")
            os.makedirs(os.path.join(events, event_id, row["id"]))
            for name in os.listdir(os.path.join(events, source_event, source_id)):
                os.link(os.path.join(events, source_event, source_id, name), os.path.join(events, event_id, row["id"], name))
        rows.append(tuple(row[column] for column in columns))
    database.executemany(f"INSERT INTO photos ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
    database.commit()
    database.close()


def deep_cursor(client, event_id: str, token: str, depth: int) -> str:
    cursor, seen = None, 0
    while seen < depth:
        page = client.call("GET", f"/api/v1/events/{event_id}/photos?limit=100" + (f"&cursor={cursor}" if cursor else ""), token=token)
        seen += len(page["items"])
        cursor = page["nextCursor"]
    return cursor


def gallery_api(server: Server, event_id: str, token: str) -> dict:
    client = server.client()
    base = f"http://127.0.0.1:{server.port}/api/v1/events/{event_id}/photos?limit=50"
    first = wrk(base, token)
    deep = wrk(base + "&cursor=" + deep_cursor(client, event_id, token, 9000), token)
    # The same server's ceiling for any route: a 13 KB static file from memory, no session, no database.
    static = wrk(f"http://127.0.0.1:{server.port}/static/app.css")
    return {"first": first, "deep": deep, "static": static}


NGINX_CONF = """
worker_processes 2;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    types {{ image/jpeg jpg; }}
    server {{
        listen 127.0.0.1:{port};
        root {media};
        location / {{ add_header Cache-Control "private, max-age=31536000, immutable"; }}
    }}
}}
"""

ROTATE = """
local paths = {{}}
for line in io.lines("{list}") do paths[#paths + 1] = line end
local n = 0
request = function()
    n = n + 1
    return wrk.format("GET", paths[(n % #paths) + 1])
end
"""


def thumbnails(server: Server, event_id: str, token: str, photo_ids: list[str], nginx_port: int = 8092) -> dict:
    """The same thumbnails, rotating over every photo: from Disposable by the signed links its API hands out (what
    the web app loads), from Disposable by the session-checked address, and from nginx (static files)."""
    work = tempfile.mkdtemp(prefix="bench-nginx-", dir=WORK)
    media = os.path.join(server.data, "media")
    subprocess.run(["chmod", "-R", "a+rX", server.data], check=True)  # nginx's workers run as nobody
    client = server.client()
    links = [client.call("GET", f"/api/v1/photos/{photo}", token=token)["urls"]["thumbnail"] for photo in photo_ids]
    results = {}
    for name, paths in {
        "disposable": links,
        "session": [f"/api/v1/photos/{photo}/thumbnail" for photo in photo_ids],
        "nginx": [f"/events/{event_id}/{photo}/thumbnail.jpg" for photo in photo_ids],
    }.items():
        with open(os.path.join(work, f"{name}.txt"), "w") as listing:
            listing.write("\n".join(paths) + "\n")
        with open(os.path.join(work, f"{name}.lua"), "w") as script:
            script.write(ROTATE.format(list=os.path.join(work, f"{name}.txt")))
    with open(os.path.join(work, "nginx.conf"), "w") as conf:
        conf.write(NGINX_CONF.format(work=work, port=nginx_port, media=media))
    nginx = subprocess.Popen(["nginx", "-c", os.path.join(work, "nginx.conf"), "-g", "daemon off;"])
    try:
        time.sleep(0.5)
        results["nginx"] = wrk(f"http://127.0.0.1:{nginx_port}/", script=os.path.join(work, "nginx.lua"))
        results["disposable"] = wrk(f"http://127.0.0.1:{server.port}/", script=os.path.join(work, "disposable.lua"))
        results["session"] = wrk(f"http://127.0.0.1:{server.port}/", token, script=os.path.join(work, "session.lua"))
    finally:
        nginx.terminate()
        nginx.wait()
    return results
