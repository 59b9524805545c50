"""What the browser tests measure on a phone: control geometry, a pixel's colour, axe-core's findings and
English words left on French pages. Helpers only; the walks that use them are in test_web.py."""
import base64
import json
import os
import struct
import zlib

PHONE = (390, 844)
SMALL = (320, 568)
DEFAULT = (412, 915)
AXE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".build", "axe", "axe.min.js")


def set_size(driver, size):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True})


# Every visible control under `root`: inside the viewport, and none on another (a box inside another, like a
# label's text inside its button, is one control).
GEOMETRY = """
const root = document.querySelector(arguments[0]);
if (!root) return ['no ' + arguments[0]];
const visible = (e) => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !e.closest('.sr-only, .skip'); };
const controls = [...root.querySelectorAll('button, a[href], a[download], input:not([type=hidden]), select, textarea, summary')].filter(visible);
const name = (e) => e.id || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 20) || e.tagName;
const problems = [];
for (const e of controls) {
  const r = e.getBoundingClientRect();
  if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
    problems.push(`${name(e)} at x ${Math.round(r.left)}–${Math.round(r.right)}, y ${Math.round(r.top)}–${Math.round(r.bottom)} of ${innerWidth}×${innerHeight}`);
}
for (let i = 0; i < controls.length; i++) for (let j = i + 1; j < controls.length; j++) {
  const [a, b] = [controls[i], controls[j]];
  if (a.contains(b) || b.contains(a)) continue;
  const [p, q] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
  if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) problems.push(`${name(a)} over ${name(b)}`);
}
return problems;"""


def controls_inside(driver, selector):
    return driver.execute_script(GEOMETRY, selector)


def pixel(driver, x, y):
    """The colour drawn at (x, y) CSS pixels, from a screenshot of that one point."""
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": {"x": x, "y": y, "width": 1, "height": 1, "scale": 1}})
    data = base64.b64decode(shot["data"])
    chunks, offset = {}, 8
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        chunks.setdefault(kind, b"")
        chunks[kind] += data[offset + 8:offset + 8 + length]
        offset += 12 + length
    channels = {2: 3, 6: 4}[chunks[b"IHDR"][9]]
    # The first pixel of the first row is stored as it is whatever the row's filter (nothing before or above it).
    row = zlib.decompress(chunks[b"IDAT"])
    return tuple(row[1:1 + channels][:3])


def axe_findings(driver, rules=None):
    """axe-core 4.12's serious and critical violations on the page as it is now, as readable lines; `rules` runs only
    those (rules off by default, as `color-contrast-enhanced`, included)."""
    if not driver.execute_script("return typeof axe === 'object'"):
        with open(AXE) as handle:
            driver.execute_script(handle.read())
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, arguments[0]).then((r) => done(JSON.stringify(r.violations)), (e) => done(JSON.stringify([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}])));",
        options)
    return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
            for v in json.loads(result) if v["impact"] in ("serious", "critical")]


def axe_version():
    with open(AXE) as handle:
        return handle.readline().split("axe v")[-1].strip()


def english_only(catalogues):
    """English sentences whose French differs: any of them on a French page is a string left untranslated."""
    english, french = catalogues
    found = set()
    for key, text in english.items():
        plain = text.split("{")[0].strip()
        if key in french and french[key] != text and len(plain) >= 12 and " " in plain:
            found.add(plain)
    return found


def load_catalogues():
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Sources", "DisposableFeatures", "Words", "Strings")
    return tuple(json.load(open(os.path.join(root, f"{language}.json"))) for language in ("en", "fr"))


def english_left(driver, sentences):
    text = driver.execute_script("return document.body.innerText")
    return sorted(sentence for sentence in sentences if sentence in text)
