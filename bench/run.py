"""Runs PERF-1, 2, 3, 5 and 6 on a release build (SQLite + local folder, loopback) and prints one line per figure
with its reference and the ratio. PERF-4 runs separately (scripts/bench-live), called by scripts/bench."""
import argparse
import glob
import os
import statistics
import sys
import time

import container
import gallery
import ingest
import library_sync
import webdav_copy
import memory
import real_photos
from common import BINARY, ROOT, WORK, ContainerServer, Server, organizer_and_event, stage
from photos import generate

lines = []


def report(line: str):
    lines.append(line)
    print(line, flush=True)


def encryption(paths: list[str], real: list[str]):
    """PERF-1 with `--storage-key-file` and without, each against pyvips in pairs, in one sitting: what sealing every
    file written (original, thumbnail, preview) costs the ingest."""
    key = os.path.join(WORK, "storage.key")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    for corpus, files in (("generated photos", paths), ("real photographs", real)):
        results = {}
        for name, env in (("plain", {}), ("encrypted", {"DISPOSABLE_STORAGE_KEY_FILE": key})):
            with stage(f"PERF-1 on {corpus}, {name}: in turn with pyvips, five runs each", 1200):
                server = Server(port=8095, env=env).start()
                results[name] = ingest.compare(server, files)
                server.stop()
            report(f"PERF-1 ingest, {corpus}, {name}: {ingest.describe(results[name])}")
        plain, sealed = (results[n]["ratios"][len(results[n]["ratios"]) // 2] for n in ("plain", "encrypted"))
        cpu = {n: results[n]["cpu_ms"][len(results[n]["cpu_ms"]) // 2] for n in results}
        report(f"PERF-1 encryption at rest, {corpus}: ratio to pyvips {sealed:.2f}x encrypted vs {plain:.2f}x plain "
               f"({(1 - sealed / plain) * 100:+.1f} % cost); server CPU {cpu['encrypted']:.0f} vs {cpu['plain']:.0f} ms a photo")


def before_and_after(before: str, paths: list[str], real: list[str]):
    """PERF-1 of an earlier build (`--before PATH`, a copy of its .build/release/disposable with libDisposableVips.so
    beside it) and of this one, each against pyvips in pairs, taking turns, in one sitting: what a change to the
    code around the hot path cost."""
    for corpus, files in (("generated photos", paths), ("real photographs", real)):
        for name, binary in (("before", before), ("after", BINARY)):
            with stage(f"PERF-1 on {corpus}, {name}: in turn with pyvips, five runs each", 1200):
                server = Server(port=8096, binary=binary).start()
                result = ingest.compare(server, files)
                server.stop()
            report(f"PERF-1 ingest, {corpus}, {name}: {ingest.describe(result)}")


def first_looks(paths: list[str], in_container: bool = False):
    """PERF-1 ("done" is both derivatives, no `previewPending`) at 4 and 8 uploaders, each without and with the phones'
    first looks, in turn with pyvips; a server for each (each run signs up an organizer, and sign-ups are limited).
    `in_container`: the server from the image (Debian 13, libvips 8.16) instead of the host's build."""
    where = ", in the container" if in_container else ""
    for clients in (4, 8):
        for looks in (False, True):
            name = f"{clients} uploaders, {'with' if looks else 'without'} first looks{where}"
            with stage(f"PERF-1, {name}: pyvips and Disposable in turn, five runs each", 1200):
                server = (ContainerServer(port=8095) if in_container else Server()).start()
                try:
                    result = ingest.compare(server, paths, clients=clients, first_looks=looks)
                finally:
                    server.stop()
            report(f"PERF-1 ingest, generated photos, {name}: {ingest.describe(result)}")
    if not in_container:
        first_look_cpu(paths)


def first_look_cpu(paths: list[str], binary: str = BINARY, name: str = "this build"):
    """The server's CPU from a photo's arrival to everyone seeing it: with first looks and the server's renders held
    back (the tests' switch), the uploads' CPU is all of that path's — received, checked (the first look decoded and
    encoded again), stored, recorded, announced."""
    with stage(f"the server's CPU from arrival to visible, with first looks, renders held back ({name})", 600):
        server = Server(binary=binary, env={"DISPOSABLE_TEST_FIRST_LOOK_RENDER_DELAY": "600"}).start()
        try:
            looks = [ingest.first_look(path) for path in paths]
            runs = [ingest.disposable(server, paths, clients=4, first_looks=looks, wait_ready=False) for _ in range(3)]
        finally:
            server.stop()
    cpu = sorted(run["acknowledging_cpu_ms"] for run in runs)
    report(f"Server CPU from arrival to visible, with first looks ({name}; 4 uploaders, {len(paths)} photos, 3 runs): "
           f"{cpu[1]:.1f} ({cpu[0]:.1f}-{cpu[2]:.1f}) ms a photo; acknowledged after "
           f"{sorted(run['acknowledged_s'] for run in runs)[1]:.2f} s")
    return cpu[1]


def first_look_cpu_before_and_after(before: str | None, paths: list[str], rounds: int = 6):
    """`--first-look-cpu`: the arrival-to-visible CPU alone; with `--before PATH`, of that build and this one in
    turn, `rounds` times each, which goes first alternating (the machine's speed drifts by more than a change moves
    it), and the ratio of their medians and of each pair. The server's data is where TMPDIR says: on an ext4 without a
    journal, creating a file steps over every inode deleted in the last minutes, and a bench deletes thousands."""
    if not before:
        first_look_cpu(paths)
        return
    medians = {"before": [], "after": []}
    builds = [("before", os.path.join(ROOT, before)), ("after", BINARY)]
    for turn in range(rounds):
        for name, binary in builds if turn % 2 == 0 else builds[::-1]:
            medians[name].append(first_look_cpu(paths, binary, name))
    ratio = statistics.median(medians["after"]) / statistics.median(medians["before"])
    pairs = ", ".join(f"{after / before:.2f}" for after, before in zip(medians["after"], medians["before"]))
    report(f"Server CPU from arrival to visible, after / before: {ratio:.2f}× (pairs {pairs}; "
           f"before {', '.join(f'{m:.1f}' for m in medians['before'])} ms; after {', '.join(f'{m:.1f}' for m in medians['after'])} ms)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--ingest-only", action="store_true", help="PERF-1 on both corpora, and stop")
    parser.add_argument("--library-only", action="store_true", help="the first sync of 1,000 photos (LIB-4), and stop")
    parser.add_argument("--webdav", action="store_true",
                        help="rclone copy of 1,000 photos over WebDAV against the first disposable sync of them, and stop")
    parser.add_argument("--encryption", action="store_true",
                        help="PERF-1 on both corpora with photos encrypted at rest and without, in turn, and stop")
    parser.add_argument("--before", metavar="PATH", help="PERF-1 of an earlier build's binary and of this one, in turn")
    parser.add_argument("--container", action="store_true",
                        help="with --ingest-only: PERF-1 also from the image scripts/test-container builds, and on HEIC; "
                             "with --first-looks: that matrix from the image instead")
    parser.add_argument("--first-looks", action="store_true",
                        help="PERF-1 on generated photos at 4 and 8 uploaders, with and without the phones' first looks, and stop")
    parser.add_argument("--first-look-cpu", action="store_true",
                        help="the server's CPU from arrival to visible with first looks (with --before: of both builds), and stop")
    args = parser.parse_args()
    if args.container and not (args.ingest_only or args.first_looks):
        parser.error("--container goes with --ingest-only or --first-looks")
    os.makedirs(WORK, exist_ok=True)
    if args.library_only:
        return library()
    if args.webdav:
        return webdav()
    with stage("generating the photos", 1800):
        paths = generate(os.path.join(WORK, "photos"), args.photos)
    sizes = [os.path.getsize(path) / 1e6 for path in paths]
    if args.encryption:
        return encryption(paths, real_photos.generate(os.path.join(WORK, "real-photos"), args.photos))
    if args.first_looks:
        return first_looks(paths, in_container=args.container)
    if args.first_look_cpu:
        return first_look_cpu_before_and_after(args.before, paths)
    if args.before:
        return before_and_after(os.path.join(ROOT, args.before), paths, real_photos.generate(os.path.join(WORK, "real-photos"), args.photos))

    # PERF-1: ingest. A run takes 3 s and the VM's speed drifts: pyvips and Disposable take turns, five runs
    # each (each Disposable run into a new event on the same server; the median run's event serves what follows).
    with stage("PERF-1: pyvips and Disposable in turn, five runs each; Pillow once", 1200):
        server = Server(env={"DISPOSABLE_MAX_UPLOAD_MB": "300"}).start()  # room for PERF-5's 200 MB upload
        noise = ingest.compare(server, paths)
        pillow_rate = ingest.reference(paths, ingest.pillow_derivatives)
    ingested = noise["median"]
    rate = ingested["photos_per_s"]
    report(f"PERF-1 ingest, generated photos ({min(sizes):.1f}-{max(sizes):.1f} MB): {ingest.describe(noise)} | "
           f"Pillow+draft {pillow_rate:.1f}/s -> {rate / pillow_rate:.2f}x")
    event_id, token, guest = ingested["event"]["id"], ingested["token"], ingested["guest"]

    # PERF-1 again on real photographs: smoother and smaller, so everything besides rendering weighs
    # more. On a server of its own, so that the counts of the figures below stay what they say.
    with stage("generating the real-photo corpus", 1800):
        real = real_photos.generate(os.path.join(WORK, "real-photos"), args.photos)
    real_sizes = [os.path.getsize(path) / 1e6 for path in real]
    with stage("PERF-1 on real photographs: pyvips and Disposable in turn, five runs each", 1200):
        real_server = Server(port=8093).start()
        real_result = ingest.compare(real_server, real)
        real_server.stop()
    report(f"PERF-1 ingest, real photographs ({min(real_sizes):.1f}-{max(real_sizes):.1f} MB): {ingest.describe(real_result)}")
    # The same, with Disposable on the reference's own libvips (the pyvips-binary wheel's 8.18, preloaded so that
    # its symbols come first): what the library version is worth. Not a way to run Disposable — that build cannot
    # decode HEVC, so iPhones' HEIC photos would fail.
    wheel = glob.glob(os.path.join(sys.prefix, "lib", "python3*", "site-packages", "pyvips_binary.libs", "libvips-*.so.42"))
    if args.container:
        return in_the_container(server, paths, real)
    for corpus, files in (("generated photos", paths), ("real photographs", real)) if wheel else ():
        with stage(f"PERF-1 on {corpus}, Disposable on libvips 8.18: in turn with pyvips, five runs each", 1200):
            same_library = Server(port=8094, env={"LD_PRELOAD": wheel[0]}).start()
            same_result = ingest.compare(same_library, files)
            same_library.stop()
        report(f"PERF-1 ingest, {corpus}, Disposable on pyvips' libvips 8.18: {ingest.describe(same_result)}")
    if args.ingest_only:
        server.stop()
        return
    after_photos = memory.idle(server)  # libvips is loaded by the first photo: idle memory once it has been

    # PERF-3: thumbnails, Disposable vs nginx on the same files.
    with stage("PERF-3 thumbnails: Disposable and nginx under wrk", 600):
        served = gallery.thumbnails(server, event_id, token, ingested["photo_ids"])
    ratio = served["disposable"]["rps"] / served["nginx"]["rps"]
    report(f"PERF-3 thumbnails (wrk 64 conns, {len(paths)} files in rotation): {served['disposable']['rps']:.0f} req/s, "
           f"p99 {served['disposable']['99%']:.2f} ms (signed links; session-checked address {served['session']['rps']:.0f} req/s) | "
           f"nginx {served['nginx']['rps']:.0f} req/s, p99 {served['nginx']['99%']:.2f} ms -> {ratio:.2f}x" + error_note(served))

    # PERF-5: one 200 MB upload, then a 2 GB ZIP (copies of the photos, hard-linked).
    with stage("PERF-5 a 200 MB upload", 600):
        upload = memory.receiving_upload(server, event_id, guest)
    report(f"PERF-5 memory, 200 MB upload ({upload['size_mb']:.0f} MB, HTTP {upload['status']}): RSS {upload['before_mb']:.1f} -> peak "
           f"{upload['peak_mb']:.1f} MB (+{upload['peak_mb'] - upload['before_mb']:.1f} MB)")
    with stage("PERF-5 a 2 GB event ZIP", 900):
        server.stop(remove=False)
        zip_copies = int(2.1e9 / (sum(sizes) / len(sizes) * 1e6))
        gallery.seed_photos(server, event_id, event_id, zip_copies, link_files=True)
        server.start()
        streamed = memory.streaming_zip(server, event_id, token)
    report(f"PERF-5 memory, event ZIP ({streamed['size_gb']:.2f} GB at {streamed['mb_per_s']:.0f} MB/s, HTTP {streamed['status']}): "
           f"RSS {streamed['before_mb']:.1f} -> peak {streamed['peak_mb']:.1f} MB (+{streamed['peak_mb'] - streamed['before_mb']:.1f} MB)")

    # PERF-2: the gallery API on a 10,000-photo event (rows added straight in SQLite).
    with stage("PERF-2 the gallery API on 10,000 photos", 900):
        _, other = organizer_and_event(server)
        server.stop(remove=False)
        gallery.seed_photos(server, event_id, event_id, 10_000 - len(paths) - zip_copies - 1)
        server.start()
        api = gallery.gallery_api(server, event_id, token)
    for name, label in (("first", "first page"), ("deep", "page after 9,000")):
        result = api[name]
        report(f"PERF-2 gallery API, 10,000 photos, {label} of 50 (wrk 64 conns): {result['rps']:.0f} req/s, "
               f"p50 {result['50%']:.2f} ms, p99 {result['99%']:.2f} ms (target p99 < 10 ms) | same server, static file "
               f"{api['static']['rps']:.0f} req/s -> {result['rps'] / api['static']['rps']:.2f}x" + error_note({name: result}))

    # PERF-6: start-up with 100,000 photos in the database; idle memory after it.
    with stage("PERF-6 start-up with 100,000 photos, five times", 1200):
        server.stop(remove=False)
        # the other ingest runs hold the rest
        gallery.seed_photos(server, event_id, other["id"], 90_000 - (len(noise["rates"]) - 1) * len(paths))
        startups = []
        for _ in range(5):
            server.start(wait=False)
            startups.append(server.wait_healthy())
            idle = memory.idle(server) if len(startups) == 5 else None
            server.stop(remove=False)
    report(f"PERF-6 start-up to the first /healthz 200, 100,000 photos: median {statistics.median(startups) * 1000:.0f} ms "
           f"(of 5: {', '.join(f'{s * 1000:.0f}' for s in startups)} ms; target < 1 s)")
    report(f"PERF-5 memory, idle after start-up (100,000 photos): {idle:.1f} MB (target < 60 MB); "
           f"idle after rendering photos (libvips loaded): {after_photos:.1f} MB")
    server.stop()
    library()


def in_the_container(host_server: Server, paths: list[str], real: list[str]):
    """PERF-1 from the image (Debian 13, libvips 8.16) on both corpora, in the sitting that measured the host binary
    above; then an iPhone-style HEIC corpus, with pyvips on the image's own libvips as the reference."""
    host_server.stop()
    for corpus, files in (("generated photos", paths), ("real photographs", real)):
        with stage(f"PERF-1 on {corpus}, Disposable in the container: in turn with pyvips, five runs each", 1200):
            server = ContainerServer(port=8095).start()
            fresh = memory.idle(server)
            result = ingest.compare(server, files)
            after = memory.idle(server)  # libvips is loaded by the first photo
            server.stop()
        report(f"PERF-1 ingest, {corpus}, Disposable in the container (Debian 13, libvips 8.16): {ingest.describe(result)}")
        report(f"container's server RSS idle: {fresh:.0f} MB fresh, {after:.0f} MB after the runs")
    with stage("making the HEIC corpus and the reference's image", 1800):
        heic = container.heic_corpus(real, os.path.join(WORK, "heic-photos"))
        container.build_reference_image()
    heic_sizes = [os.path.getsize(path) / 1e6 for path in heic]
    with stage("PERF-1 on HEIC: Disposable in the container and pyvips in the same image, in turn, five runs each", 1800):
        server = ContainerServer(port=8096).start()
        result = ingest.compare(server, heic, reference_rate=container.reference_in_container)
        server.stop()
    report(f"PERF-1 ingest, iPhone-style HEIC ({min(heic_sizes):.1f}-{max(heic_sizes):.1f} MB), Disposable in the container: "
           + ingest.describe(result, reference="pyvips on the image's libvips 8.16"))
    with open(os.path.join(WORK, "summary.txt"), "w") as summary:
        summary.write(time.strftime("%Y-%m-%d %H:%M UTC\n", time.gmtime()) + "\n".join(lines) + "\n")


def library():
    """LIB-4: the first `disposable sync` of 1,000 photos."""
    with stage("generating 1,000 photos for the library", 1800):
        paths = library_sync.generate(os.path.join(WORK, "library-photos"), 1000)
    with stage("LIB-4: plain POSTs, then the first sync of 1,000 photos, a re-run, a second folder", 3600):
        result = library_sync.run(paths)
    report(f"LIB-4 library sync, 1,000 photos: {library_sync.describe(result)}")
    with open(os.path.join(WORK, "summary.txt"), "w") as summary:
        summary.write(time.strftime("%Y-%m-%d %H:%M UTC\n", time.gmtime()) + "\n".join(lines) + "\n")


def webdav():
    """The phone's backup: rclone over WebDAV against `disposable sync`, 1,000 photos."""
    with stage("generating 1,000 photos for the library", 1800):
        paths = library_sync.generate(os.path.join(WORK, "library-photos"), 1000)
    with stage("rclone copy over WebDAV and disposable sync of 1,000 photos, then rclone again", 3600):
        result = webdav_copy.run(paths)
    report(f"WebDAV backup, 1,000 photos: {webdav_copy.describe(result)}")


def error_note(results: dict) -> str:
    errors = sum(result.get("errors", 0) for result in results.values())
    return f" [{errors} non-2xx answers!]" if errors else ""


if __name__ == "__main__":
    main()
