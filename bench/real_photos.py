"""Generates the benchmark's second corpus: real photographs — the sample photos scikit-image ships
(astronaut, cat, coffee, motorcycle, rocket, the Hubble deep field, a retina) — made into 12 MP photos as a phone
would send them: a different crop, mirror and exposure of a source for each file, scaled to 4032x3024 (or
3024x4032), a little sensor grain, JPEG at quality 85-92 with EXIF date, GPS and orientation (every fourth stored
sideways with orientation 6). Smoother than the noise corpus, so its files are smaller (about 1-2 MB) and decoding
is cheaper for everyone: what a server does besides rendering weighs more. No HEIC yet: the reference's libvips
(the pyvips-binary wheel) cannot decode HEVC, so the two sides would not do the same work.
"""
import os
import random
import sys

import pyvips
import skimage

WIDTH, HEIGHT = 4032, 3024
SOURCES = ["astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "motorcycle_right.png", "rocket.jpg",
           "hubble_deep_field.jpg", "retina.jpg"]


def source(name: str) -> pyvips.Image:
    return pyvips.Image.new_from_file(os.path.join(os.path.dirname(skimage.__file__), "data", name))[0:3]


def photo(index: int) -> pyvips.Image:
    random.seed(index)
    image = source(SOURCES[index % len(SOURCES)])
    # A crop of 70-100 % of the frame, somewhere in it; mirrored half the time; brighter or darker by up to 15 %.
    scale = random.uniform(0.7, 1.0)
    width, height = int(image.width * scale), int(image.height * scale)
    image = image.crop(random.randint(0, image.width - width), random.randint(0, image.height - height), width, height)
    if random.random() < 0.5:
        image = image.fliphor()
    portrait = index % 8 == 5
    target = (HEIGHT, WIDTH) if portrait else (WIDTH, HEIGHT)
    image = image.resize(max(target[0] / image.width, target[1] / image.height), kernel="lanczos3")
    image = image.crop((image.width - target[0]) // 2, (image.height - target[1]) // 2, *target)
    grain = pyvips.Image.gaussnoise(target[0], target[1], sigma=1.5, mean=0, seed=index)
    return (image.linear(random.uniform(0.85, 1.15), 0) + grain).cast("uchar")


def tagged(image: pyvips.Image, index: int) -> pyvips.Image:
    image = image.copy()
    if index % 4 == 3:
        # Orientation 6 tells a viewer to turn the stored pixels a quarter clockwise: they are stored a quarter the other way.
        image = image.rot270().copy()
        image.set_type(pyvips.GValue.gint_type, "orientation", 6)
    image.set_type(pyvips.GValue.gstr_type, "exif-ifd2-DateTimeOriginal", f"2026:06:{1 + index % 28:02d} 18:{index % 60:02d}:00")
    # Somewhere in Paris, as phones write it (degrees, minutes, seconds as rationals).
    image.set_type(pyvips.GValue.gstr_type, "exif-ifd3-GPSLatitudeRef", "N")
    image.set_type(pyvips.GValue.gstr_type, "exif-ifd3-GPSLatitude", f"48/1 51/1 {2400 + index}/100")
    image.set_type(pyvips.GValue.gstr_type, "exif-ifd3-GPSLongitudeRef", "E")
    image.set_type(pyvips.GValue.gstr_type, "exif-ifd3-GPSLongitude", f"2/1 21/1 {800 + index}/100")
    return image


def generate(folder: str, count: int) -> list[str]:
    os.makedirs(folder, exist_ok=True)
    paths = []
    for index in range(count):
        path = os.path.join(folder, f"real-{index:03d}.jpg")
        paths.append(path)
        if os.path.exists(path):
            continue
        tagged(photo(index), index).jpegsave(path + ".tmp", Q=random.Random(index).randint(85, 92))
        os.replace(path + ".tmp", path)
    return paths


if __name__ == "__main__":
    folder, count = sys.argv[1], int(sys.argv[2])
    for path in generate(folder, count):
        print(path, os.path.getsize(path))
