"""Generates the benchmark's 12 MP photos: 4032x3024 JPEGs of 2.5-4 MB with photographic statistics.

Real photos cannot ship in the repository, so each one is built from noise at several scales
(natural images have a roughly 1/f spectrum: big soft shapes, then ever finer, weaker detail),
tinted per image, with a little sensor grain, saved at quality 92 with 4:2:0 chroma like a phone camera. Every
fourth photo is stored sideways with EXIF orientation 6, as phones do when held upright.
"""
import os
import random
import sys

import pyvips

WIDTH, HEIGHT = 4032, 3024


def octave_noise(seed: int) -> pyvips.Image:
    random.seed(seed)
    image = pyvips.Image.black(WIDTH, HEIGHT, bands=3).cast("float")
    for scale, weight in [(256, 70), (64, 32), (16, 16), (4, 8), (1, 2.5)]:
        small = pyvips.Image.gaussnoise((WIDTH + scale - 1) // scale, (HEIGHT + scale - 1) // scale, sigma=1, mean=0, seed=random.randrange(1 << 30))
        bands = [small.linear(1, 0)] + [
            pyvips.Image.gaussnoise(small.width, small.height, sigma=1, mean=0, seed=random.randrange(1 << 30)) * 0.5 + small * 0.5 for _ in range(2)
        ]
        layer = bands[0].bandjoin(bands[1:])
        if scale > 1:
            layer = layer.resize(scale, kernel="cubic").crop(0, 0, WIDTH, HEIGHT)
        image = image + layer * weight
    tint = [random.uniform(90, 160) for _ in range(3)]
    return (image + tint).cast("uchar")


def generate(folder: str, count: int) -> list[str]:
    os.makedirs(folder, exist_ok=True)
    paths = []
    for index in range(count):
        path = os.path.join(folder, f"photo-{index:03d}.jpg")
        paths.append(path)
        if os.path.exists(path):
            continue
        image = octave_noise(index)
        if index % 4 == 3:
            # Stored sideways; the EXIF tag says "rotate 90° clockwise to view".
            image = image.rot90().copy()
            image.set_type(pyvips.GValue.gint_type, "orientation", 6)
        image.set_type(pyvips.GValue.gstr_type, "exif-ifd2-DateTimeOriginal", f"2026:06:{1 + index % 28:02d} 18:{index % 60:02d}:00")
        image.jpegsave(path + ".tmp", Q=92)
        os.replace(path + ".tmp", path)
    return paths


if __name__ == "__main__":
    folder, count = sys.argv[1], int(sys.argv[2])
    for path in generate(folder, count):
        print(path, os.path.getsize(path))
