"""PERF-1 on the scale-out stack: ingest on PostgreSQL + an S3 bucket beside the same run on SQLite +
the local folder, with pyvips as the reference, all in one run. The bucket is moto's (Python, in memory): the
figure measures Disposable with moto's speed in the way, not a production store.
Usage (from scripts/bench-scaleout): scaleout.py POSTGRES_URL S3_ENDPOINT [--photos N]"""
import argparse
import os
import statistics
import subprocess
import uuid

import ingest
from common import WORK, Server
from photos import generate


def median_rate(server: Server, paths: list[str]) -> tuple[float, list[float]]:
    rates = sorted(ingest.disposable(server, paths)["photos_per_s"] for _ in range(3))
    return statistics.median(rates), rates


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("postgres")
    parser.add_argument("s3")
    parser.add_argument("--photos", type=int, default=40)
    args = parser.parse_args()
    paths = generate(os.path.join(WORK, "photos"), args.photos)
    pyvips = statistics.median(ingest.reference(paths, ingest.pyvips_derivatives) for _ in range(3))

    local = Server(port=8093).start()
    local_rate, local_runs = median_rate(local, paths)
    local.stop()

    bucket = f"bench-{uuid.uuid4().hex[:12]}"
    subprocess.run(["curl", "-sf", "-X", "PUT", f"{args.s3}/{bucket}"], check=True)
    scaled = Server(port=8094, env={
        "DISPOSABLE_DATABASE_URL": args.postgres, "DISPOSABLE_STORAGE_URL": f"s3://{bucket}", "DISPOSABLE_S3_ENDPOINT": args.s3,
        "DISPOSABLE_S3_PATH_STYLE": "true", "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}).start()
    scaled_rate, scaled_runs = median_rate(scaled, paths)
    scaled.stop()

    line = (f"PERF-1 ingest, scale-out stack: PostgreSQL + S3 (moto) {scaled_rate:.1f} photos/s "
            f"(median of {', '.join(f'{r:.1f}' for r in scaled_runs)}) | SQLite + folder {local_rate:.1f}/s "
            f"(of {', '.join(f'{r:.1f}' for r in local_runs)}) -> {scaled_rate / local_rate:.2f}x | "
            f"pyvips 8.18 {pyvips:.1f}/s -> {scaled_rate / pyvips:.2f}x (local {local_rate / pyvips:.2f}x)")
    print(line, flush=True)
    with open(os.path.join(WORK, "summary.txt"), "a") as summary:
        summary.write(line + "\n")


if __name__ == "__main__":
    main()
