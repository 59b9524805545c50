"""PERF-1 inside the image (`scripts/bench --ingest-only --container`): the server from the image
scripts/test-container builds (Debian 13, libvips 8.16), and an iPhone-style HEIC corpus whose reference is pyvips on
the image's own libvips and libheif — the pyvips-binary wheel cannot decode HEVC — run in a container of that image.
"""
import os
import subprocess

from common import PODMAN, ROOT, ContainerServer

REFERENCE_IMAGE = "localhost/disposable-bench-reference:test"

# pyvips from PyPI in ABI mode (no compiler in the image): it opens the image's own libvips.so.42. pip trusts the
# host's certificate authorities (mounted at build time), as the host's own pip does.
REFERENCE_CONTAINERFILE = f"""FROM {ContainerServer.IMAGE}
USER root
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip python3-cffi \\
 && pip install --break-system-packages --no-cache-dir --cert /host-ca.crt pyvips && rm -rf /var/lib/apt/lists/*
"""
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"


def heic_corpus(photos: list[str], folder: str) -> list[str]:
    """The real photographs as an iPhone stores them: HEVC in HEIF, ≈ 1.5 MB at 12 MP (quality 70; x265 at its fastest,
    13 s a photo), orientation and EXIF kept. Made with the host's libvips and libheif, once."""
    os.makedirs(folder, exist_ok=True)
    made = []
    for path in photos:
        target = os.path.join(folder, os.path.splitext(os.path.basename(path))[0] + ".heic")
        if not os.path.exists(target):
            # The environment as Python knows it: the wheel's libvips, loaded in this process, changes the C one, and
            # Debian's vips then finds no HEIF saver.
            subprocess.run(["vips", "copy", path, f"{target}.tmp.heic[compression=hevc,Q=70,effort=0]"], check=True, env=dict(os.environ))
            os.rename(f"{target}.tmp.heic", target)
        made.append(target)
    return made


def build_reference_image():
    subprocess.run(PODMAN + ["build", "--network=host", "--format", "docker", "-v", f"{HOST_CA}:/host-ca.crt:ro",
                             "-t", REFERENCE_IMAGE, "-f", "-", ROOT],
                   input=REFERENCE_CONTAINERFILE.encode(), check=True, capture_output=True)


def reference_in_container(paths: list[str]) -> float:
    """photos/s of ingest.reference (pyvips, one process per core) run inside the reference image on the same files."""
    folder = os.path.dirname(paths[0])
    inside = [f"/corpus/{os.path.basename(path)}" for path in paths]
    program = ("import sys; sys.path.insert(0, '/bench'); import ingest; "
               "print(ingest.reference(sys.argv[1:], ingest.pyvips_derivatives))")
    output = subprocess.run(PODMAN + ["run", "--rm", "--network=host", "--entrypoint", "python3",
                                      "-v", f"{os.path.join(ROOT, 'bench')}:/bench:ro", "-v", f"{folder}:/corpus:ro",
                                      REFERENCE_IMAGE, "-c", program, *inside], check=True, capture_output=True, text=True)
    return float(output.stdout.strip().splitlines()[-1])
