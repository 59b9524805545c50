#!/usr/bin/env python3
"""The web app in a real Chromium: guests join by QR and shoot; organizers run their event.

Usage: test_web.py PATH_TO_DISPOSABLE_BINARY
Starts its own server on embedded defaults, drives headless Chromium with its fake camera at phone size,
and saves screenshots of the main pages in $DISPOSABLE_WEB_ARTIFACTS (default .build/web-artifacts).
"""
import base64
import datetime
import hashlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import zipfile

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

import phone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from ports import free_port  # noqa: E402

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/disposable")
ARTIFACTS = os.path.abspath(os.environ.get("DISPOSABLE_WEB_ARTIFACTS", ".build/web-artifacts"))
WAIT = 30
# Renders are the slowest thing a check waits for, more so while the Swift tests share the cores: a bound, not a pause.
RENDER_WAIT = 120



class MailSink:
    """A real SMTP server (aiosmtpd, Tests/tools/smtp_sink.py) keeping every message in a folder."""

    def __init__(self):
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="disposable-mail-")
        script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "smtp_sink.py")
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, script, str(self.port), self.folder], stdout=subprocess.DEVNULL, stderr=self.errors)
        deadline = time.time() + 20
        while time.time() < deadline and self.process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        self.process.kill()
        self.errors.seek(0)
        raise RuntimeError(f"the SMTP server did not start on port {self.port}: {self.errors.read().decode()[-2000:]}")

    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def messages(self):
        names = sorted((n for n in os.listdir(self.folder) if n.endswith(".eml")), key=lambda n: int(n[:-4]))
        return [open(os.path.join(self.folder, n), "rb").read().decode() for n in names]

    def stop(self):
        self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


class Server:
    def __init__(self, mail=None, extra=(), env=None):
        self.port = free_port()
        self.base = f"http://localhost:{self.port}"
        self.data = tempfile.mkdtemp(prefix="disposable-web-")
        self.log = open(os.path.join(self.data, "server.log"), "w")
        self.process = subprocess.Popen(
            [BINARY, "serve", "--data-dir", self.data, "--host", "127.0.0.1", "--port", str(self.port), "--public-url", self.base]
            + (["--smtp-url", mail.url(), "--mail-from", "Disposable <photos@example.org>"] if mail else []) + list(extra),
            stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "DISPOSABLE_TEST_OUTBOUND_LOOPBACK": "1", "DISPOSABLE_TEST_PASSWORD_HASH_COST": "4", **(env or {})})
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(self.base + "/healthz", timeout=2).status == 200:
                    return
            except Exception:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def setup_code(self):
        """The one-time code /setup asks for, as the server printed it in its log at start."""
        self.log.flush()
        found = re.search(r"setup code ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})", open(os.path.join(self.data, "server.log")).read())
        assert found, "the server's log names the setup code"
        return found.group(1)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()

    def api(self, path, cookie):
        """GET an API path with a browser's session cookie."""
        request = urllib.request.Request(self.base + path, headers={"Cookie": f"disposable_session={cookie}", "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def utc(text):
    """An API time as an aware datetime, whatever its fraction digits."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).replace(microsecond=0)


def browser(language="en-GB", downloads=None):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--use-fake-device-for-media-stream",
                     "--use-fake-ui-for-media-stream", f"--lang={language}", "--window-size=412,915"]:
        options.add_argument(argument)
    prefs = {"intl.accept_languages": language}
    if downloads:
        prefs.update({"download.default_directory": downloads, "download.prompt_for_download": False})
    options.add_experimental_option("prefs", prefs)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 412, "height": 915, "deviceScaleFactor": 2, "mobile": True})
    # The fake camera's ImageCapture stills can repeat byte for byte across shots (the server then keeps one photo
    # and the offline check fails at random); its video frames carry a running counter. So the camera page takes
    # its fallback path here: the current video frame drawn on a canvas.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.ImageCapture;"})
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def wait(driver, condition, message, timeout=WAIT):
    try:
        # A page replaced while it is looked at (a form's answer arriving) is looked at again.
        return WebDriverWait(driver, timeout, poll_frequency=0.2,
                             ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(lambda d: condition(d))
    except TimeoutException:
        raise AssertionError(f"timed out: {message} (at {driver.current_url})")


def tile_of(photo_id, part="button"):
    return f"#grid li[data-id='{photo_id}'] {part}"


def open_tile(driver, photo_id):
    """Clicks a photo's tile. A tile is drawn again when the server's thumbnail replaces the phone's first look, so a
    button found a moment before may be gone: it is found again."""
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, tile_of(photo_id)).click() is None, f"the tile of {photo_id}")


def click_and_load(driver, element, fragment, message):
    """Clicks something that loads a new page, and waits for that page (not the one still showing) to be there."""
    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait(driver, lambda d: fragment in d.current_url and not old_is_current(old), message)


def old_is_current(element):
    try:
        element.tag_name
        return True
    except Exception:
        return False


def shot(driver, name):
    """A screenshot for people to look at: an artifact, not a check. A renderer busy on a loaded machine (a CI run
    lost one while recording video) is given a second try, then skipped with a warning."""
    os.makedirs(os.path.dirname(os.path.join(ARTIFACTS, name)), exist_ok=True)
    for attempt in (1, 2):
        try:
            driver.save_screenshot(os.path.join(ARTIFACTS, f"{name}.png"))
            return
        except TimeoutException as error:
            if attempt == 2:
                print(f"  warning: no screenshot {name}: {error.msg}", flush=True)
            time.sleep(2)


def session_cookie(driver):
    cookie = driver.get_cookie("disposable_session")
    assert cookie, "no session cookie"
    return cookie["value"]


def page_errors(driver):
    """Script errors and CSP violations the page logged (network 4xx from tests themselves are ignored)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and "Failed to load resource" not in entry["message"]]


def mail_body(message):
    """A received message's text (the server sends it base64-encoded)."""
    return base64.b64decode("".join(message.split("\r\n\r\n", 1)[1].split())).decode()


def register_and_create_event(driver, server, mail, name, shots, reveal="now"):
    register(driver, server, mail, "Emma")
    return create_event(driver, server, name, shots, reveal)


def register(driver, server, mail, person):
    """Registers as the server asks: with a mail server, through the link mailed to the address."""
    email = f"{person.lower()}-{time.time_ns()}@example.com"
    driver.get(server.base + "/register")
    driver.find_element(By.ID, "name").send_keys(person)
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys("a good password")
    driver.find_element(By.NAME, "terms").click()  # Organizers accept the terms too
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait(driver, lambda d: d.find_elements(By.ID, "register-sent"), "the register page says a mail is on its way")
    message = wait(driver, lambda d: next((m for m in mail.messages() if email in m), None), "the confirmation mail")
    link = next(word for word in mail_body(message).split() if "/register/confirm/" in word)
    driver.get(link)
    driver.find_element(By.ID, "confirm-account").click()
    wait(driver, lambda d: d.current_url.endswith("/events"), "dashboard after confirming")


def create_event(driver, server, name, shots, reveal="now"):
    driver.get(server.base + "/events/new")
    driver.find_element(By.ID, "f-name").send_keys(name)
    field = driver.find_element(By.ID, "f-shots")
    field.clear()
    field.send_keys(str(shots))
    driver.find_element(By.CSS_SELECTOR, f"input[name=revealMode][value='{reveal}']").click()
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait(driver, lambda d: "/events/" in d.current_url and "created=1" in d.current_url, "event page after creating")
    return driver.current_url.split("/events/")[1].split("?")[0]


def french_dark(driver, server, path, name):
    """A screenshot of `path` in French and dark, to look at; then English and light again for the checks that follow."""
    driver.get(f"{server.base}/language/fr?back={path}")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot(driver, name)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.get(f"{server.base}/language/en?back={path}")


def split_words(driver, element):
    """The words of an element's text drawn over two lines (cut, with or without a hyphen)."""
    return driver.execute_script("""
        const split = [];
        for (const node of arguments[0].childNodes) {
          if (node.nodeType !== Node.TEXT_NODE) continue;
          for (const match of node.data.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) split.push(match[0]);
          }
        }
        return split;""", element)


def axe_light_and_dark(driver, place):
    """axe-core's serious findings on the page as it is, light and dark, each named with `place`."""
    findings = []
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        findings += [f"{place} ({scheme}): {finding}" for finding in phone.axe_findings(driver)]
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    return findings


def tap(driver, element):
    """A tap on a control brought to the middle of the screen (selenium's own scrolling leaves it at the bottom
    edge, under an event page's tab bar)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def confirm_in_app(driver):
    """The app's own confirmation, not the browser's confirm(): its primary button goes on."""
    wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "dialog.confirm[open] button[value=yes]")), None),
         "the app's confirmation").click()


def decode_qr(driver):
    """The QR code as the page shows it, read by zbarimg like a phone camera would."""
    image = driver.find_element(By.ID, "event-qr")
    wait(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image), "QR image loaded")
    path = os.path.join(ARTIFACTS, "qr-on-page.png")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)  # whole, as a phone would frame it
    image.screenshot(path)
    output = subprocess.run(["zbarimg", "--raw", "-q", path], capture_output=True, text=True, check=True).stdout.strip()
    assert output.startswith("http://localhost:") and "/e/" in output and "?k=" in output, f"unexpected QR content {output!r}"
    return output


def join(driver, url, name, shooting=True, walk_intro=False):
    driver.get(url)
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.NAME, "terms").click()
    driver.find_element(By.CSS_SELECTOR, "#join-form button[type=submit]").click()
    wait(driver, lambda d: "/camera" in d.current_url, "camera page after joining")
    if not shooting:
        return  # the event is over: no camera
    # Three short screens the first time on a browser, skippable; then only CAM-3's word on
    # why the camera is needed, and the viewfinder.
    assert driver.find_element(By.ID, "camera-intro").is_displayed()
    first_time = not getattr(driver, "intro_seen", False)
    assert driver.find_element(By.ID, "intro-skip").is_displayed() == first_time, "the introduction, once per browser"
    if first_time and walk_intro:
        for step in (1, 2):
            shot(driver, f"guest-intro-{step}")
            driver.find_element(By.ID, "intro-next").click()
    elif first_time:
        driver.find_element(By.ID, "intro-skip").click()
    driver.intro_seen = True
    driver.find_element(By.ID, "camera-start").click()
    wait(driver, lambda d: d.find_element(By.ID, "shutter").is_enabled(), "shutter enabled once the camera runs")


def shots_left(driver):
    return int(driver.find_element(By.ID, "shots-left").get_attribute("data-shots"))


def queue_empty(driver):
    return driver.execute_script("""
        return new Promise((resolve) => {
          const open = indexedDB.open('disposable');
          open.onsuccess = () => {
            const db = open.result;
            if (!db.objectStoreNames.contains('uploads')) { resolve(0); return; }
            const count = db.transaction('uploads').objectStore('uploads').count();
            count.onsuccess = () => resolve(count.result);
          };
        });""") == 0


# A fingerprint of the camera's current picture (FNV-1a over its pixels).
FRAME_FINGERPRINT = """
const video = document.getElementById('video');
const canvas = document.createElement('canvas');
canvas.width = video.videoWidth; canvas.height = video.videoHeight;
const context = canvas.getContext('2d');
context.drawImage(video, 0, 0);
const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
let hash = 2166136261;
for (let i = 0; i < pixels.length; i++) hash = Math.imul(hash ^ pixels[i], 16777619);
return hash;"""
# Every picture shot in this run, by any browser: each fake camera draws the same pictures, counted from the
# moment its page opened the stream, so two guests (or two visits of one) can hold up the same picture.
PICTURES_SHOT = set()


def shoot(driver):
    # Two shots of the same picture are one photo (same SHA-256, 409 for the second: the shot is given back and
    # the camera says "already in the event"). The fake camera's frames carry a counter that starts again with
    # every stream, so a new visit can hold up a picture already shot between two fingerprints (a CI run lost
    # "shots left goes down" that way: 2 → 1 → 2 between two polls). Wait for a picture not yet seen, and shoot
    # again when the server still calls it a copy.
    before = shots_left(driver)
    for _ in range(5):
        time.sleep(1)
        wait(driver, lambda d: d.execute_script(FRAME_FINGERPRINT) not in PICTURES_SHOT, "a new camera picture")
        PICTURES_SHOT.add(driver.execute_script(FRAME_FINGERPRINT))
        driver.execute_script("document.querySelectorAll('.toast').forEach(toast => toast.remove())")  # one may be leaving already
        driver.find_element(By.ID, "shutter").click()
        outcome = wait(driver, lambda d: "shot" if shots_left(d) == before - 1 else
                       "copy" if any("already" in e.text or "déjà" in e.text for e in d.find_elements(By.CSS_SELECTOR, ".toast")) else None,
                       "shots left goes down after a shot")
        PICTURES_SHOT.add(driver.execute_script(FRAME_FINGERPRINT))
        if outcome == "shot":
            return
        wait(driver, lambda d: shots_left(d) == before and d.find_element(By.ID, "shutter").is_enabled(), "the copy's shot given back")
    raise AssertionError("five shots in a row were copies of earlier pictures")


def photos(server, cookie, event_id, **query):
    items, cursor = [], None
    while True:
        params = "&".join([f"{k}={v}" for k, v in query.items()] + ([f"cursor={cursor}"] if cursor else []))
        page = server.api(f"/api/v1/events/{event_id}/photos?limit=100&{params}", cookie)
        items += page["items"]
        cursor = page.get("nextCursor")
        if not cursor:
            return items


def wait_for_photos(server, cookie, event_id, count, shooter=None):
    """The event's ready photos (of one shooter), once there are `count` of them."""
    deadline = time.time() + RENDER_WAIT
    while True:
        items = [p for p in photos(server, cookie, event_id) if shooter is None or p["shooter"]["name"] == shooter]
        if len(items) == count or time.time() > deadline:
            assert len(items) == count, f"expected {count} ready photos, found {len(items)}"
            return items
        time.sleep(0.3)


def wait_for_asset(server, cookie, asset_id):
    """A library asset once its renders are done."""
    deadline = time.time() + RENDER_WAIT
    while True:
        asset = server.api(f"/api/v1/library/assets/{asset_id}", cookie)
        if asset["status"] != "processing" or time.time() > deadline:
            assert asset["status"] == "ready", asset
            return asset
        time.sleep(0.3)


def gallery_ids(driver):
    return set(driver.execute_script("return [...document.querySelectorAll('#grid li[data-id]')].filter(li => li.querySelector('img')).map(li => li.dataset.id)"))


def guestbook_checks(organizer, server, ben, check, drivers):
    """SOC-1, SOC-2: in an event of their own, Dora writes a note and Ben sees it live; Ben likes it and
    comments, and Dora, looking at it, sees both live, as text; Ben draws with his finger and Dora sees the drawing."""
    create_event(organizer, server, "Guestbook", 3)
    link = decode_qr(organizer)
    # SOC-4: the organizer lets guests film, from the event's settings.
    allow = organizer.find_element(By.CSS_SELECTOR, "#settings input[name=allowVideos]")
    organizer.execute_script("arguments[0].scrollIntoView({block: 'center'})", allow)
    allow.click()
    organizer.execute_script("window.beforeSaving = true")
    organizer.find_element(By.CSS_SELECTOR, "#settings button[type=submit]").click()
    saved = "return window.beforeSaving === undefined && !!document.querySelector('#settings input[name=allowVideos]:checked')"
    def reloaded(d):
        try:
            return d.execute_script(saved)
        except Exception:
            return False  # between the two pages
    wait(organizer, reloaded, "videos allowed, saved")
    gallery = link.split("?")[0]
    dora = browser(); drivers.append(dora)
    join(dora, link, "Dora")
    join(ben, link, "Ben")
    for driver in (dora, ben):
        driver.get(gallery)
        wait(driver, lambda d: d.find_element(By.ID, "write-note").is_displayed(), "the guestbook's buttons")
    words = "Congratulations <i>you two</i>! 🎉 Félicitations pour ce merveilleux mariage"
    dora.find_element(By.ID, "write-note").click()
    dora.execute_script("document.getElementById('note-input').value = arguments[0]", words)  # the emoji: chromedriver types only the BMP
    dora.find_element(By.CSS_SELECTOR, "#note-dialog button[value='post']").click()
    tile = wait(ben, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#grid li .note-words")), None), "Dora's note in Ben's gallery, live")
    assert tile.text == words, tile.text
    note = ben.execute_script("return arguments[0].closest('li').dataset.id", tile)
    shot(ben, "guest-gallery-note")
    check("a guest writes a note and another sees it in the gallery live, as text")

    dora.find_element(By.CSS_SELECTOR, f"#grid li[data-id='{note}'] button").click()
    wait(dora, lambda d: d.find_element(By.ID, "viewer-note").text == words, "Dora's note, large, in her viewer")
    split = split_words(dora, dora.find_element(By.ID, "viewer-note"))
    assert not split, f"words cut at a line's end: {split}"
    dora.find_element(By.ID, "comments-button").click()
    wait(dora, lambda d: d.find_element(By.ID, "comments-dialog").is_displayed(), "the comments sheet")
    ben.find_element(By.CSS_SELECTOR, f"#grid li[data-id='{note}'] button").click()
    wait(ben, lambda d: d.find_element(By.ID, "viewer-note").is_displayed(), "Ben's viewer on the note")
    ben.find_element(By.ID, "like-button").click()
    wait(ben, lambda d: d.find_element(By.ID, "like-button").get_attribute("aria-pressed") == "true", "Ben's like, pressed")
    wait(dora, lambda d: d.find_element(By.ID, "like-count").text == "1", "the like, counted live in Dora's viewer")
    ben.find_element(By.ID, "comments-button").click()
    comment = "So <b>lovely</b>, thank you"
    ben.find_element(By.ID, "comment-input").send_keys(comment + "\n")
    wait(ben, lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "#comments li p")] == [comment], "Ben's comment under the note")
    wait(dora, lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "#comments li p")] == [comment], "Ben's comment, live, for Dora")
    assert not dora.find_elements(By.CSS_SELECTOR, "#comments b")  # text, never markup
    assert dora.find_element(By.CSS_SELECTOR, "#comments li .face.initial").text == "B"  # SOC-5: a guest shows his initial
    shot(dora, "guest-comments")
    dora.find_element(By.ID, "comments-close").click()
    dora.find_element(By.ID, "viewer-close").click()
    badge = dora.find_element(By.CSS_SELECTOR, f"#grid li[data-id='{note}'] .reactions").text
    assert "♥ 1" in badge and "1" in badge.split("·")[-1], badge
    check("a guest likes and comments on another's note (large in the viewer, no word cut at a line's end); she sees the like and the comment live")

    # SOC-3: Dora's bell counted both, live; opened, it says who did what, and its link opens the note.
    wait(dora, lambda d: d.find_element(By.ID, "bell-count").text == "2", "two unread on Dora's bell")
    dora.find_element(By.ID, "bell").click()
    notices = wait(dora, lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "#notifications li a span")] or None, "the notifications")
    assert notices[0] == f"Ben commented on your post in Guestbook: “{comment}”" and notices[1] == "Ben liked your post in Guestbook", notices
    wait(dora, lambda d: not d.find_element(By.ID, "bell-count").is_displayed(), "read once seen")
    # A guest without an account is offered notices on her phone too (the reveal is what she waits for).
    wait(dora, lambda d: d.find_element(By.ID, "push-offer").is_displayed(), "the bell's offer to a guest")
    problems = phone.controls_inside(dora, "#notifications-dialog")
    assert not problems, problems
    shot(dora, "guest-notifications")
    dora.find_element(By.CSS_SELECTOR, "#notifications li a").click()
    wait(dora, lambda d: d.find_element(By.ID, "viewer").is_displayed() and d.find_element(By.ID, "viewer-note").text == words, "the note, opened from its notification")
    dora.find_element(By.ID, "viewer-close").click()
    assert server.api("/api/v1/notifications", session_cookie(dora))["unreadCount"] == 0
    check("a guest's bell counts a like and a comment on her note live; opened, they are read and lead to the note; it offers notices on her phone")

    ben.find_element(By.ID, "comments-close").click()
    ben.find_element(By.ID, "viewer-close").click()
    ben.find_element(By.ID, "draw").click()
    canvas = wait(ben, lambda d: next((e for e in d.find_elements(By.ID, "drawing-canvas") if e.is_displayed()), None), "the drawing pad")
    ben.find_element(By.CSS_SELECTOR, "#drawing-dialog [data-colour='#e0245e']").click()
    ActionChains(ben).move_to_element_with_offset(canvas, -60, -60).click_and_hold().move_by_offset(120, 0).move_by_offset(0, 120).release().perform()
    ActionChains(ben).move_to_element_with_offset(canvas, 60, -60).click_and_hold().move_by_offset(-120, 120).release().perform()
    ben.find_element(By.ID, "drawing-undo").click()  # the second line goes
    shot(ben, "guest-drawing")
    ben.find_element(By.CSS_SELECTOR, "#drawing-dialog button[value='post']").click()
    event = ben.execute_script("return JSON.parse(document.getElementById('event-config').textContent).id")
    def drawing(_):
        items = server.api(f"/api/v1/events/{event}/photos?limit=100", session_cookie(ben))["items"]
        return next((p for p in items if p["shooter"]["name"] == "Ben" and p["status"] == "ready"), None)
    posted = wait(ben, drawing, "Ben's drawing processed", timeout=60)
    wait(dora, lambda d: posted["id"] in gallery_ids(d), "Ben's drawing in Dora's gallery, live")
    request = urllib.request.Request(server.base + posted["urls"]["original"], headers={"Cookie": f"disposable_session={session_cookie(dora)}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        png = response.read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == 900, "the drawing is not a 900-pixel PNG"
    assert response.headers.get("Content-Disposition", "").find("BenDrawing1.png") >= 0, response.headers.get("Content-Disposition")
    # Read as what it is: the tile says "Drawing by Ben", not a photo, not only a name.
    label = dora.execute_script("return document.querySelector(`#grid li[data-id='${arguments[0]}'] button.thumb`).getAttribute('aria-label')", posted["id"])
    assert label and label.startswith("Drawing by Ben"), label
    check("a guest draws with a few colours and undo, and the drawing appears in another's gallery, named as a drawing")

    # SOC-4: Ben films three seconds with the fake camera (the timer runs); Dora plays it in her viewer.
    ben.get(gallery + "/camera")
    wait(ben, lambda d: d.find_element(By.ID, "shutter").is_enabled(), "Ben's camera")
    ben.find_element(By.ID, "mode-video").click()
    wait(ben, lambda d: d.find_element(By.ID, "record-timer").is_displayed() and d.find_element(By.ID, "shutter").is_enabled(), "video mode")
    ben.find_element(By.ID, "shutter").click()
    wait(ben, lambda d: d.find_element(By.ID, "record-timer").text.startswith("0:02"), "the timer running")
    shot(ben, "guest-recording")
    time.sleep(1)
    ben.find_element(By.ID, "shutter").click()
    wait(ben, queue_empty, "Ben's video sent (tus)", timeout=90)
    def video(_):
        items = server.api(f"/api/v1/events/{event}/photos?limit=100", session_cookie(ben))["items"]
        return next((p for p in items if p.get("kind") == "video" and p["status"] == "ready"), None)
    posted = wait(ben, video, "Ben's video made playable", timeout=120)
    assert posted["urls"]["video"] and 2 <= posted["durationSeconds"] <= 5, posted
    wait(dora, lambda d: posted["id"] in gallery_ids(d), "Ben's video in Dora's gallery, live")
    badge = dora.find_element(By.CSS_SELECTOR, f"#grid li[data-id='{posted['id']}'] .video-badge").text
    assert badge.startswith("▶ 0:0"), badge
    dora.find_element(By.CSS_SELECTOR, f"#grid li[data-id='{posted['id']}'] button").click()
    player = wait(dora, lambda d: next((e for e in d.find_elements(By.ID, "viewer-video") if e.is_displayed()), None), "the player")
    dora.execute_script("arguments[0].muted = true; arguments[0].play()", player)
    wait(dora, lambda d: d.execute_script("return arguments[0].currentTime > 0.5 && arguments[0].readyState >= 2", player), "the video playing")
    # The player plays the whole video the server measured (the stop tap lands later on a busy machine: 3 to 5.5 s).
    length = dora.execute_script("return arguments[0].duration", player)
    assert length >= 2 and abs(length - posted["durationSeconds"]) < 1.05, (length, posted["durationSeconds"])
    shot(dora, "guest-video")
    dora.find_element(By.ID, "viewer-close").click()
    check("a guest films a short video with the camera's timer; another plays it, live in her gallery")


def moments_checks(organizer, server, check):
    """CAP-3: the organizer notes a moment; it is listed as text with its date, counted for the year, and
    the page gave the account the browser's time zone."""
    organizer.get(server.base + "/moments")
    text = wait(organizer, lambda d: d.find_element(By.ID, "moment-text"), "the moments page")
    text.send_keys("First swim of the summer <b>!</b>")
    organizer.find_element(By.CSS_SELECTOR, "#moment-form button").click()
    item = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#moment-list li")), None), "the moment listed")
    assert "First swim of the summer <b>!</b>" in item.text and not item.find_elements(By.TAG_NAME, "b"), item.text
    assert organizer.find_element(By.ID, "moment-count").text.startswith("1 moment in "), organizer.find_element(By.ID, "moment-count").text
    organizer.refresh()
    wait(organizer, lambda d: d.find_elements(By.CSS_SELECTOR, "#moment-list li"), "the moment after a reload")
    assert organizer.find_element(By.ID, "moments").get_attribute("data-zone-set") == "true", "the browser's time zone was kept"
    shot(organizer, "moments")
    check("a moment is noted, listed as text with its date and counted for the year; the account takes the browser's zone")


def profile_checks(organizer, server, check):
    """stories 2, 7-8: the profile page takes a unique username and a light or dark choice that every page
    then follows, whatever the device says."""
    organizer.get(server.base + "/account")
    field = wait(organizer, lambda d: d.find_element(By.ID, "username"), "the username field")
    field.clear()
    field.send_keys("Emma.B")
    click_and_load(organizer, organizer.find_element(By.CSS_SELECTOR, "form[action='/account/username'] button"), "done=username", "username saved")
    assert organizer.find_element(By.ID, "username").get_attribute("value") == "emma.b"
    organizer.find_element(By.CSS_SELECTOR, "input[name=appearance][value=dark]").click()
    click_and_load(organizer, organizer.find_element(By.CSS_SELECTOR, "form[action='/account/appearance'] button"), "done=appearance", "appearance saved")
    background = lambda d: d.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert organizer.find_element(By.TAG_NAME, "html").get_attribute("data-theme") == "dark" and background(organizer) == "rgb(20, 19, 17)", background(organizer)
    shot(organizer, "account-dark")
    organizer.get(server.base + "/library")
    assert background(organizer) == "rgb(20, 19, 17)", "every page follows the choice"
    organizer.get(server.base + "/account")
    organizer.find_element(By.CSS_SELECTOR, "input[name=appearance][value=system]").click()
    click_and_load(organizer, organizer.find_element(By.CSS_SELECTOR, "form[action='/account/appearance'] button"), "done=appearance", "back to the device's")
    assert organizer.find_element(By.TAG_NAME, "html").get_attribute("data-theme") is None and background(organizer) == "rgb(250, 247, 242)"
    shot(organizer, "account")
    check("the profile page keeps a username and a dark choice that every page follows, then the device's again")

    # The account's time zone wins over the browser's, for a time that is a moment (sent by the uploader, not a
    # camera's clock, which shows as it was written): from a Paris browser, an account set to Tokyo sees 30 June
    # 21:13 UTC at 06:13 in July; "this device's" gives Paris back.
    moment = os.path.join(tempfile.mkdtemp(prefix="disposable-zone-"), "IMG_MOMENT.jpg")
    subprocess.run(["vips", "gaussnoise", moment + "[Q=85]", "400", "300"], check=True)
    with open(moment, "rb") as handle:
        request = urllib.request.Request(server.base + "/api/v1/library/assets", data=handle.read(), method="POST", headers={
            "Cookie": f"disposable_session={session_cookie(organizer)}", "Content-Type": "image/jpeg", "Origin": server.base,
            "X-File-Name": "IMG_MOMENT.jpg", "X-Taken-At": "2026-06-30T21:13:00Z"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201

    def library_shows(time_text, month):
        organizer.get(server.base + "/library")
        wait(organizer, lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline .month h2"), "the timeline")
        heading = organizer.find_element(By.CSS_SELECTOR, "#timeline .month h2").text
        assert heading == month, heading
        organizer.find_element(By.CSS_SELECTOR, "#timeline li button").click()
        caption = wait(organizer, lambda d: "IMG_MOMENT" in d.find_element(By.ID, "viewer-caption").text and d.find_element(By.ID, "viewer-caption").text, "the photo sent with its moment")
        assert time_text in caption, caption

    def choose_zone(zone):
        organizer.get(server.base + "/account")
        Select(organizer.find_element(By.ID, "time-zone-choice")).select_by_value(zone)
        click_and_load(organizer, organizer.find_element(By.CSS_SELECTOR, "form[action='/account/time-zone'] button"), "done=time-zone", "time zone saved")
        assert organizer.find_element(By.TAG_NAME, "html").get_attribute("data-time-zone") == (zone or None)

    organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Paris"})
    for zone, time_text, month in [("Asia/Tokyo", "06:13", "July 2026"), ("", "23:13", "June 2026")]:
        choose_zone(zone)
        if zone:
            organizer.execute_script("document.getElementById('time-zone').scrollIntoView()")
            problems = phone.controls_inside(organizer, "#time-zone")
            assert not problems, problems
            shot(organizer, "account-time-zone")
            french_dark(organizer, server, "/account#time-zone", "account-time-zone-fr-dark")
        library_shows(time_text, month)
    # Left on "this device's": the event form's checks later read typed times in the browser's zone.
    organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    check("the account's time zone wins over the browser's: Tokyo's 06:13 in July from a Paris browser, then Paris again; its controls inside 390 px")


def instagram_checks(organizer, server, downloads, check):
    """Instagram's export (a ZIP in JSON format, today's layout, under a folder named after the account) picked
    on My photos: read in the browser, its photos go into the library with their posts' dates and captions."""
    def mangled(text):  # how Instagram writes text: each UTF-8 byte as a character of its own
        return text.encode().decode("latin-1")
    caption = "Café au soleil ☀️\nDeuxième ligne"
    posts = [
        {"media": [{"uri": "media/posts/202405/ig1.jpg", "creation_timestamp": 1715600000, "title": mangled(caption)}]},
        {"media": [{"uri": "media/posts/202405/ig2.jpg", "creation_timestamp": 1715700000, "title": ""}], "title": "Plage"},
    ]
    export = os.path.join(downloads, "instagram-emma-2026-01-01.zip")
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as archive:
        root = "instagram-emma_20260101/"
        archive.writestr(root + "your_instagram_activity/media/posts_1.json", json.dumps(posts))
        for index, name in enumerate(["ig1.jpg", "ig2.jpg"]):
            path = os.path.join(downloads, name)
            subprocess.run(["vips", "gaussnoise", path + "[Q=85]", str(420 + index), "300"], check=True)
            # One stored, one deflated: both ways a ZIP keeps a file.
            archive.write(path, root + "media/posts/202405/" + name, zipfile.ZIP_STORED if index else zipfile.ZIP_DEFLATED)
    cookie = session_cookie(organizer)
    organizer.get(server.base + "/library")
    wait(organizer, lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline li"), "the timeline")
    fixture_checks = instagram_fixture_checks(organizer)
    organizer.find_element(By.ID, "instagram-file").send_keys(export)
    def imported(_):
        items = server.api("/api/v1/library/assets?limit=100", cookie)["items"]
        found = {item["fileName"]: item for item in items if item["fileName"] in ("ig1.jpg", "ig2.jpg") and item["status"] == "ready"}
        return found if len(found) == 2 else None
    found = wait(organizer, imported, "the export's two photos in my library", timeout=60)
    assert found["ig1.jpg"].get("caption") == caption and found["ig2.jpg"].get("caption") == "Plage", found
    assert found["ig1.jpg"]["takenAt"].startswith("2024-05-13T11:33:20"), found["ig1.jpg"]["takenAt"]
    organizer.get(server.base + "/library")
    tile = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, f"#timeline li[data-id='{found['ig1.jpg']['id']}'] button")), None),
                "the Instagram photo's tile")
    organizer.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
    tile.click()
    words = wait(organizer, lambda d: d.find_element(By.ID, "viewer-words").is_displayed() and d.find_element(By.ID, "viewer-words"), "the caption in the viewer")
    assert words.text == caption, words.text
    problems = phone.controls_inside(organizer, "#viewer")
    assert not problems, problems
    shot(organizer, "library-instagram")
    organizer.find_element(By.ID, "viewer-close").click()
    assert not page_errors(organizer), page_errors(organizer)
    check("an Instagram export picked on My photos: its photos arrive with their posts' dates and captions, shown under the photo")
    check(f"instagram.js reads the shared fixtures ({fixture_checks}) as expected.json says, as the CLI does")


def instagram_fixture_checks(driver):
    """The web app's reader of Instagram's export on Tests/fixtures/instagram, the exports the CLI's reader is tested
    on (InstagramFixturesTests): the same files, times, captions and missing files. Returns the fixtures' names."""
    fixtures = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "instagram")
    expected = json.load(open(os.path.join(fixtures, "expected.json")))
    lists_pattern = re.compile(r"(^|/)(your_instagram_activity/media|content)/(posts_[0-9]+|stories|reels|igtv_videos)\.json$")
    for name, want in expected.items():
        folder = os.path.join(fixtures, name)
        names, lists = [], []
        for directory, _, files in os.walk(folder):
            for file in files:
                path = os.path.relpath(os.path.join(directory, file), folder).replace(os.sep, "/")
                names.append(path)
                if lists_pattern.search(path):
                    lists.append([path, json.load(open(os.path.join(directory, file)))])
        found = driver.execute_async_script("""
            const [lists, names, done] = arguments;
            const url = document.querySelector('script[src*="library.js"]').src.replace('library.js', 'instagram.js');
            import(url).then((reader) => done(reader.mediaOf(lists, new Set(names)))).catch((error) => done({ error: String(error) }));
        """, lists, names)
        assert "error" not in found, found
        media = sorted(({"path": m["path"], "takenAt": m["time"], "caption": m["caption"]} for m in found["media"]), key=lambda m: m["path"])
        assert media == sorted(want["import"], key=lambda m: m["path"]), (name, media)
        assert sorted(found["missing"]) == sorted(want["missing"]), (name, found["missing"])
    return ", ".join(sorted(expected))


def openid_checks(check, drivers):
    """"Sign in with Google" against a real OpenID provider (oidc-provider-mock, started here) on a server
    set up for it: the button on the sign-in page, the provider's form, back signed in to a new account; My account
    says it is linked; a second sign-in opens the same account."""
    port = free_port()
    provider = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(port), "--require-nonce"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    issuer = f"http://127.0.0.1:{port}"
    server = None
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=2):
                    break
            except OSError:
                assert time.time() < deadline and provider.poll() is None, "the OpenID provider did not start"
                time.sleep(0.3)
        claims = json.dumps({"email": "nina@example.org", "email_verified": True, "name": "Nina Perez"}).encode()
        urllib.request.urlopen(urllib.request.Request(issuer + "/users/nina-g", data=claims, method="PUT",
                                                      headers={"Content-Type": "application/json"}), timeout=10)
        server = Server(extra=["--oidc-issuer", issuer, "--oidc-client-id", "web-tests", "--oidc-button-label", "Sign in with Google"],
                        env={"OIDC_CLIENT_SECRET": "web-tests-secret"})
        nina = browser(); drivers.append(nina)

        def sign_in():
            nina.get(server.base + "/login?next=/account")
            button = nina.find_element(By.ID, "openid-button")
            assert button.text == "Sign in with Google", button.text
            button.click()
            wait(nina, lambda d: d.current_url.startswith(issuer), "the provider's form")
            field = nina.find_element(By.NAME, "sub")
            field.send_keys("nina-g")
            field.submit()
            wait(nina, lambda d: d.current_url.startswith(server.base + "/account"), "back on My account, signed in")
            return server.api("/api/v1/me", session_cookie(nina))["user"]

        nina.get(server.base + "/login")
        problems = phone.controls_inside(nina, "main")
        assert not problems, problems
        assert nina.find_element(By.ID, "password").is_displayed(), "passwords stay beside the provider"
        shot(nina, "login-openid")
        french_dark(nina, server, "/login", "login-openid-fr-dark")

        def accessible(where):
            for scheme in ["light", "dark"]:
                nina.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                findings = phone.axe_findings(nina)
                assert not findings, (where, scheme, findings)
            nina.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

        accessible("/login")
        first = sign_in()
        assert first["email"] == "nina@example.org" and first["name"] == "Nina Perez", first
        section = nina.find_element(By.ID, "openid")
        assert "Linked to" in section.text and "nina@example.org" in section.text, section.text
        nina.execute_script("document.getElementById('openid').scrollIntoView()")
        problems = phone.controls_inside(nina, "#openid")
        assert not problems, problems
        accessible("/account")
        shot(nina, "account-openid")
        french_dark(nina, server, "/account#openid", "account-openid-fr-dark")
        nina.delete_all_cookies()
        assert sign_in()["id"] == first["id"], "the same person opens the same account"
        check("'Sign in with Google' (a real OpenID provider): the provider's form, back signed in to a new account, linked on My account, the same account the next time; axe finds nothing serious on either page")
    finally:
        if server:
            server.stop()
        provider.terminate()
        provider.wait(timeout=30)


def first_look_checks(check, drivers):
    """The phones make the first look, on a server whose renders of a photo shown by its first look wait 45 s (a
    test-only switch): a camera shot and a picked file are each sent with one and seen in another guest's gallery
    under its address before the server's renders exist, which then replace them; a picked file whose first look is
    another picture shows the server's once rendered."""
    server = Server(env={"DISPOSABLE_TEST_FIRST_LOOK_RENDER_DELAY": "45"})
    try:
        emma = browser(); drivers.append(emma)
        emma.get(server.base + "/register")
        emma.find_element(By.ID, "name").send_keys("Emma")
        emma.find_element(By.ID, "email").send_keys("emma@example.org")
        emma.find_element(By.ID, "password").send_keys("a good password")
        emma.find_element(By.NAME, "terms").click()
        emma.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait(emma, lambda d: d.current_url.endswith("/events"), "signed in after registering")
        event_id = create_event(emma, server, "Zoé's party", shots=5)
        join_url = decode_qr(emma)
        cookie = session_cookie(emma)
        zoe, lou = browser(), browser(); drivers.extend([zoe, lou])
        join(zoe, join_url, "Zoé")
        join(lou, join_url, "Lou", shooting=False)
        lou.get(join_url.split("?")[0])
        wait(lou, lambda d: d.find_elements(By.ID, "grid"), "Lou's gallery")

        def first_look_tile(photo_id):
            return lou.execute_script(
                "const image = document.querySelector(`#grid li[data-id='${arguments[0]}'] img`);"
                "return image && image.complete && image.naturalWidth > 0 ? image.src : null", photo_id)

        shoot(zoe)
        wait(zoe, queue_empty, "Zoé's shot sent")
        picked = os.path.join(server.data, "picked.jpg")
        scene(picked, 7)
        other = os.path.join(server.data, "other.jpg")
        scene(other, 8)
        zoe.find_element(By.ID, "file-input").send_keys(picked)
        shown = [p for p in wait_for_photos(server, cookie, event_id, 2) if p.get("firstLook")]
        assert len(shown) == 2, f"{len(shown)} of 2 photos shown by their first look"
        for photo in shown:
            src = wait(lou, lambda d: first_look_tile(photo["id"]), "a first look in Lou's gallery")
            assert "first-look.jpg" in src, src
        check("a camera shot and a picked file each go with the phone's first look, seen by another guest before the server's renders")

        # The next picked file's first look is another picture (the page's decoder handed another file).
        with open(other, "rb") as handle:
            zoe.execute_script("""
                const other = new Blob([Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0))], {type: 'image/jpeg'});
                const decode = window.createImageBitmap.bind(window);
                window.createImageBitmap = (blob, options) => decode(other, options);""", base64.b64encode(handle.read()).decode())
        decoy = os.path.join(server.data, "decoy.jpg")
        scene(decoy, 9)
        zoe.find_element(By.ID, "file-input").send_keys(decoy)
        third = next(p for p in wait_for_photos(server, cookie, event_id, 3) if p["id"] not in {s["id"] for s in shown})
        assert third.get("firstLook"), third
        # The server's renders replace all three; the decoy's count as refuted.
        for photo in shown + [third]:
            src = wait(lou, lambda d: (lambda s: s if s and "thumbnail.jpg" in s else None)(first_look_tile(photo["id"])),
                       "the server's thumbnail in Lou's gallery, live", timeout=RENDER_WAIT)
        metrics = urllib.request.urlopen(server.base + "/metrics", timeout=10).read().decode()
        assert 'disposable_first_looks_total{outcome="refuted"} 1' in metrics, [l for l in metrics.splitlines() if "first_looks" in l]
        assert 'disposable_first_looks_total{outcome="confirmed"} 2' in metrics, [l for l in metrics.splitlines() if "first_looks" in l]
        check("the server's thumbnails replace the first looks live; a first look of another picture is found out and replaced")
    finally:
        server.stop()


def music_checks(organizer, server, check):
    """A Maloja scrobbler (a real one, started here) linked on My account for the capsule's song: a wrong key
    is said on the page, the right one links, and it unlinks."""
    folder = tempfile.mkdtemp(prefix="disposable-maloja-")
    key = "web-test-key-0123456789"
    with open(os.path.join(folder, "apikeys.yml"), "w") as handle:
        handle.write(f"web-tests: {key}\n")
    port = free_port()
    maloja = subprocess.Popen([sys.executable, "-m", "maloja", "run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "MALOJA_SKIP_SETUP": "yes", "MALOJA_DATA_DIRECTORY": folder, "MALOJA_PORT": str(port)})
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/apis/mlj_1/serverinfo", timeout=2):
                    break
            except OSError:
                assert time.time() < deadline and maloja.poll() is None, "Maloja did not start"
                time.sleep(0.3)
        def link(api_key):
            organizer.get(server.base + "/account#music")
            organizer.find_element(By.ID, "maloja-url").send_keys(base)
            organizer.find_element(By.ID, "maloja-key").send_keys(api_key)
            organizer.find_element(By.ID, "link-music").click()
        link("not-the-key")
        error = wait(organizer, lambda d: next((e.text for e in d.find_elements(By.CSS_SELECTOR, "#music .field-error[role=alert]")), None),
                     "the wrong key's sentence, in the music form")
        assert "does not know this API key" in error, error
        assert organizer.find_element(By.ID, "maloja-url").get_attribute("value") == base, "the address is kept"
        assert organizer.execute_script("return document.activeElement.id") == "maloja-url", "the field in question focused"
        link(key)
        wait(organizer, lambda d: "done=scrobbler" in d.current_url, "linked")
        section = organizer.find_element(By.ID, "music")
        assert "Linked to Maloja at" in section.text and base in section.text and key not in organizer.page_source, section.text
        organizer.execute_script("document.getElementById('music').scrollIntoView()")
        problems = phone.controls_inside(organizer, "#music")
        assert not problems, problems
        shot(organizer, "account-music")
        french_dark(organizer, server, "/account#music", "account-music-fr-dark")
        click_and_load(organizer, organizer.find_element(By.ID, "unlink-music"), "done=scrobbler-unlinked", "unlinked")
        assert organizer.find_element(By.ID, "maloja-url").is_displayed()
        check("My account links a Maloja scrobbler for the capsule's song (a wrong key is said in its form, the address kept), inside 390 px, and unlinks it")
    finally:
        maloja.kill()
        maloja.wait()
        shutil.rmtree(folder, ignore_errors=True)


def devices_checks(organizer, server, check):
    """My account → Devices: an app password made for a phone is shown once, opens WebDAV with the account's e-mail
    (a real PROPFIND), is listed with its use, and revoked opens nothing."""
    phone.set_size(organizer, phone.PHONE)
    organizer.get(server.base + "/account")
    click_and_load(organizer, organizer.find_element(By.CSS_SELECTOR, "a[href='/account/devices']"), "/account/devices", "the Devices page")
    organizer.find_element(By.ID, "device-name").send_keys("Emma's phone")
    organizer.find_element(By.ID, "device-current-password").send_keys("a good password")
    organizer.find_element(By.ID, "new-app-password").click()
    secret = wait(organizer, lambda d: next((e.get_attribute("value") for e in d.find_elements(By.ID, "made-password")), None), "the new password")
    assert re.fullmatch(r"([a-z2-9]{4}-){5}[a-z2-9]{4}", secret), secret
    problems = phone.controls_inside(organizer, "#new-password")
    assert not problems, problems
    shot(organizer, "account-devices-made")
    email = organizer.find_element(By.ID, "dav-user").text
    address = organizer.find_element(By.ID, "dav-address").get_attribute("value")
    assert address == server.base + "/dav/", address

    def propfind():
        request = urllib.request.Request(server.base + "/dav/library/", method="PROPFIND", headers={
            "Depth": "0", "Authorization": "Basic " + base64.b64encode(f"{email}:{secret}".encode()).decode()})
        try:
            with urllib.request.urlopen(request) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
    assert propfind() == 207
    organizer.get(server.base + "/account/devices")
    assert secret not in organizer.page_source, "shown once"
    item = organizer.find_element(By.CSS_SELECTOR, "#passwords li")
    assert "Emma's phone" in item.text and "last used" in item.text, item.text
    organizer.execute_script("document.getElementById('passwords').scrollIntoView()")
    problems = phone.controls_inside(organizer, "#passwords")
    assert not problems, problems
    shot(organizer, "account-devices")
    french_dark(organizer, server, "/account/devices", "account-devices-fr-dark")
    click_and_load(organizer, organizer.find_element(By.CSS_SELECTOR, "#passwords li button"), "done=revoked", "revoked")
    assert propfind() == 401
    phone.set_size(organizer, phone.DEFAULT)
    check("My account → Devices: an app password shown once opens WebDAV with the e-mail, is listed with its last use, inside 390 px; revoked it opens nothing")


def co_organizer_checks(organizer, server, mail, check, drivers):
    """ORG-5: the owner makes an invitation link on the event's page; a second person opens it in their own browser,
    signed out (asked to sign in or sign up), then signed in, accepts, and lands on the event as its co-organizer,
    without the owner's delete; the owner sees them listed. At 390 px, and in French and dark."""
    event_id = create_event(organizer, server, "Emma & Leo’s wedding", 5)
    phone.set_size(organizer, phone.PHONE)
    organizer.get(f"{server.base}/events/{event_id}#organizers")
    click_and_load(organizer, organizer.find_element(By.ID, "invite-co-organizer"), "/co-organizers/invite", "the invitation link")
    link = organizer.find_element(By.ID, "invitation-link").get_attribute("value")
    assert link.startswith(server.base + "/co-organize/"), link
    organizer.execute_script("document.getElementById('organizers').scrollIntoView()")
    problems = phone.controls_inside(organizer, "#organizers")
    assert not problems, problems
    shot(organizer, "organizer-co-organizer-invitation")
    findings = axe_light_and_dark(organizer, "the Organizers card with its invitation")

    leo = browser(); drivers.append(leo)
    phone.set_size(leo, phone.PHONE)
    leo.get(link)
    assert leo.find_element(By.ID, "co-organize-login").get_attribute("href").endswith("/login?next=/co-organize/" + link.rsplit("/", 1)[1])
    shot(leo, "co-organize-signed-out")
    findings += axe_light_and_dark(leo, "the invitation, signed out")
    register(leo, server, mail, "Leo")
    leo.get(link)
    assert "Emma" in leo.find_element(By.ID, "co-organize").text
    problems = phone.controls_inside(leo, "main")
    assert not problems, problems
    findings += axe_light_and_dark(leo, "the invitation, signed in")
    french_dark(leo, server, "/co-organize/" + link.rsplit("/", 1)[1], "co-organize-fr-dark")
    click_and_load(leo, leo.find_element(By.ID, "co-organize-accept"), f"/events/{event_id}", "the event's page")
    assert "Emma" in leo.find_element(By.ID, "co-organizer-welcome").text
    people = leo.find_element(By.ID, "organizer-list").text
    assert "Emma" in people and "Leo" in people, people
    assert not leo.find_elements(By.CSS_SELECTOR, "form[action$='/delete']"), "deleting is the owner's"
    assert not leo.find_elements(By.ID, "invite-co-organizer"), "inviting is the owner's"
    shot(leo, "co-organizer-event")
    findings += axe_light_and_dark(leo, "the event, as its co-organizer")
    assert not findings, findings
    leo.get(link)
    assert leo.find_elements(By.CSS_SELECTOR, "main h1") and "/co-organize/" in leo.current_url and "no longer" in leo.page_source, "used once"
    organizer.get(f"{server.base}/events/{event_id}")
    assert "Leo" in organizer.find_element(By.ID, "organizer-list").text
    phone.set_size(organizer, phone.DEFAULT)
    check("a co-organizer invitation opened in a second browser: sign up, accept, the event is theirs to run, not to delete; used once; 390 px; axe clean, light and dark")


def my_shots_checks(organizer, server, check):
    """All my shots: what an account shot at an event is under My photos → From events, grouped by event, each kept in
    the library in one tap; in the gallery's viewer, Share hands the photo itself (a file) to the share sheet and Keep
    copies it to the library. At 390 and 320 px; French and dark looked at."""
    event_id = create_event(organizer, server, "Picnic", 3)
    url = decode_qr(organizer).split("?")[0]
    cookie = session_cookie(organizer)
    picture = os.path.join(tempfile.mkdtemp(prefix="disposable-shots-"), "picnic.jpg")
    subprocess.run(["vips", "perlin", picture + "[Q=90]", "1200", "900", "--cell-size", "100", "--seed", "41", "--uchar"], check=True)
    request = urllib.request.Request(f"{server.base}/api/v1/events/{event_id}/photos", method="POST", data=open(picture, "rb").read(),
                                     headers={"Cookie": f"disposable_session={cookie}", "Content-Type": "image/jpeg",
                                              "Origin": server.base, "Sec-Fetch-Site": "same-origin"})
    urllib.request.urlopen(request, timeout=60).read()
    wait_for_photos(server, cookie, event_id, 1)
    phone.set_size(organizer, phone.PHONE)
    organizer.get(server.base + "/library")
    click_and_load(organizer, organizer.find_element(By.ID, "to-event-shots"), "/library/events", "From events")
    section = wait(organizer, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, f"section.event-shots") if "Picnic" in e.text), None),
                   "the event's group")
    wait(organizer, lambda d: section.find_elements(By.CSS_SELECTOR, "li[data-photo] img"), "the shot's thumbnail")
    problems = phone.controls_inside(organizer, "main")
    assert not problems, problems
    shot(organizer, "my-shots")
    findings = axe_light_and_dark(organizer, "From events")
    assert not findings, findings
    section.find_element(By.CSS_SELECTOR, "li[data-photo] button.save-one").click()
    wait(organizer, lambda d: d.find_element(By.CSS_SELECTOR, "section.event-shots li[data-photo] button.save-one").get_attribute("disabled"),
         "kept in the library")
    french_dark(organizer, server, "/library/events", "my-shots-fr-dark")

    organizer.get(url)
    organizer.execute_script("navigator.canShare = (data) => !!data.files;"
                             "navigator.share = async (data) => { window.shared = {files: (data.files || []).map(f => [f.type, f.size, f.name]), url: data.url}; };")
    tile = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#grid li[data-id] button")), None), "the gallery's tile")
    tile.click()
    wait(organizer, lambda d: d.find_element(By.ID, "viewer-share").is_displayed(), "Share in the viewer")
    assert organizer.find_element(By.ID, "viewer-save").is_displayed(), "Keep, for an account"
    problems = []
    for size in (phone.PHONE, phone.SMALL):
        phone.set_size(organizer, size)
        time.sleep(0.3)
        problems += [f"{size[0]} px: {p}" for p in phone.controls_inside(organizer, "dialog#viewer")]
    assert not problems, problems
    shot(organizer, "viewer-share-keep-320")
    phone.set_size(organizer, phone.PHONE)
    organizer.find_element(By.ID, "viewer-share").click()
    shared = wait(organizer, lambda d: d.execute_script("return window.shared"), "the share sheet")
    assert len(shared["files"]) == 1 and shared["files"][0][0] == "image/jpeg" and shared["files"][0][1] > 1000, shared
    organizer.find_element(By.ID, "viewer-save").click()
    wait(organizer, lambda d: d.find_element(By.ID, "viewer-save").get_attribute("disabled"), "kept from the viewer")
    phone.set_size(organizer, phone.DEFAULT)
    check("From events lists what I shot, by event, kept in one tap (axe clean); the viewer shares the photo itself as a file and keeps it; 390/320 px")


def focus_checks(organizer, server, check):
    """The library's "Add photos" and "Import from Instagram" are labels for hidden file inputs: tabbed to, the label
    shows the focus ring."""
    organizer.get(server.base + "/library")
    for input_id in ["library-files", "instagram-file"]:
        ActionChains(organizer).send_keys(Keys.TAB).perform()
        for _ in range(40):
            if organizer.execute_script("return document.activeElement.id") == input_id:
                break
            ActionChains(organizer).send_keys(Keys.TAB).perform()
        outline = organizer.execute_script(
            "return getComputedStyle(document.querySelector(`label[for='${arguments[0]}']`)).outlineStyle", input_id)
        assert outline == "solid", (input_id, outline)
    check("tabbing to Add photos and Import from Instagram shows the focus ring on the button")


def share_target_checks(organizer, server, downloads, check):
    """Android's share sheet offers the installed app: the manifest names a share target, the service worker takes
    the shared files (a POST that never reaches the server) and the library adds them through its queue."""
    with urllib.request.urlopen(server.base + "/manifest.webmanifest") as response:
        target = json.load(response)["share_target"]
    assert target["action"] == "/library/shared" and target["enctype"] == "multipart/form-data", target
    organizer.get(server.base + "/library")
    wait(organizer, lambda d: d.execute_script("return !!navigator.serviceWorker.controller"), "the service worker in control")
    before = len(json.loads(organizer.execute_script(
        "return fetch('/api/v1/library/assets?limit=100').then(r => r.text())"))["items"])
    shared = os.path.join(downloads, "IMG_SHARED.jpg")
    subprocess.run(["vips", "gaussnoise", shared + "[Q=85]", "420", "300"], check=True)
    # What the share sheet does: a POST of the files to the manifest's action, as a navigation.
    organizer.execute_script("""
      const form = document.createElement('form');
      Object.assign(form, { method: 'post', action: '/library/shared', enctype: 'multipart/form-data', id: 'share-sheet' });
      form.innerHTML = '<input type="file" name="photos" multiple id="shared-files">';
      document.body.append(form);""")
    organizer.find_element(By.ID, "shared-files").send_keys(shared)
    organizer.execute_script("document.getElementById('share-sheet').submit()")
    wait(organizer, lambda d: d.current_url.rstrip("/").endswith("/library"), "back on the library")
    def count():
        return len(json.loads(organizer.execute_script("return fetch('/api/v1/library/assets?limit=100').then(r => r.text())"))["items"])
    wait(organizer, lambda d: count() == before + 1, "the shared photo in the library")
    names = [item["fileName"] for item in json.loads(organizer.execute_script(
        "return fetch('/api/v1/library/assets?limit=100').then(r => r.text())"))["items"]]
    assert "IMG_SHARED.jpg" in names, names
    check("a photo shared to the installed app (share target) lands in the library, through the service worker and the queue")


def push_checks(organizer, server, check):
    """Notices on phones. The bell offers them to an account (asked only on a tap); the service worker
    registers at the site's root; its display code, run by Chromium, shows a notice as the server worded it and opens
    only our own pages."""
    organizer.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.base, "permissions": ["notifications"]})
    organizer.get(server.base + "/library")
    # The bell is shown once its script has run: under load, that is after the page's load.
    wait(organizer, lambda d: d.find_element(By.ID, "bell").is_displayed() and d.find_element(By.ID, "bell"), "the bell").click()
    offer = wait(organizer, lambda d: d.find_element(By.ID, "push-offer").is_displayed() and d.find_element(By.ID, "push-offer"), "the bell's offer")
    problems = phone.controls_inside(organizer, "#notifications-dialog")
    assert not problems, problems
    shot(organizer, "bell-push-offer")
    # A browser without a touch screen is a computer, not "this phone"; with one, a phone
    assert "this computer" in offer.text and "phone" not in offer.text, offer.text
    organizer.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    organizer.get(server.base + "/library")
    wait(organizer, lambda d: d.find_element(By.ID, "bell").is_displayed() and d.find_element(By.ID, "bell"), "the bell").click()
    offer = wait(organizer, lambda d: d.find_element(By.ID, "push-offer").is_displayed() and d.find_element(By.ID, "push-offer"), "the offer")
    assert "this phone" in offer.text, offer.text
    organizer.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    # A browser whose push service never answers: the button says it is working, then the page says it could not.
    organizer.execute_script("PushManager.prototype.subscribe = () => new Promise(() => {});")
    organizer.find_element(By.ID, "push-on").click()
    wait(organizer, lambda d: d.find_element(By.ID, "push-on").text == "Turning notifications on…", "the button saying it works")
    toast = wait(organizer, lambda d: next((t for t in d.find_elements(By.CSS_SELECTOR, ".toast") if t.text), None), "an answer to the tap", timeout=30)
    assert "notifications" in toast.text.lower(), toast.text
    assert organizer.find_element(By.ID, "push-on").text != "Turning notifications on…"
    scope = organizer.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.serviceWorker.getRegistration('/').then((r) => done(r ? r.scope : null), (e) => done(String(e)));")
    assert scope == server.base + "/", scope
    # The worker's own code, in Chromium's engine, with its events played by hand (evaluated from its text: the
    # page's CSP, which forbids that, is set aside for this one check).
    organizer.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})
    organizer.get(server.base + "/help")
    shown = organizer.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const source = await (await fetch('/sw.js')).text();
        const handlers = {}, calls = {shown: [], opened: [], closed: 0};
        const self = {
          location: new URL(location.origin + '/sw.js'),
          addEventListener: (name, handler) => { handlers[name] = handler; },
          registration: { showNotification: async (title, options) => { calls.shown.push({title, body: options.body, url: options.data.url, tag: options.tag}); } },
          clients: { matchAll: async () => [], openWindow: async (url) => { calls.opened.push(url); } },
        };
        new Function('self', source)(self);
        const waits = [];
        const data = {title: "Léa's 18th", body: 'Ben liked your post', url: '/e/K7QX-M2PA#post=p1', tag: 'n1'};
        handlers.push({data: {json: () => data, text: () => JSON.stringify(data)}, waitUntil: (p) => waits.push(p)});
        for (const url of ['/e/K7QX-M2PA#post=p1', 'https://evil.example/phish']) {
          handlers.notificationclick({notification: {data: {url}, close: () => { calls.closed += 1; }}, waitUntil: (p) => waits.push(p)});
        }
        await Promise.all(waits);
        done(calls);
    """)
    assert shown["shown"] == [{"title": "Léa's 18th", "body": "Ben liked your post", "url": "/e/K7QX-M2PA#post=p1", "tag": "n1"}], shown
    assert shown["opened"] == [server.base + "/e/K7QX-M2PA#post=p1"] and shown["closed"] == 2, shown
    organizer.execute_cdp_cmd("Page.setBypassCSP", {"enabled": False})
    # My account lists the kinds, inside 390 px
    organizer.get(server.base + "/account#push")
    organizer.execute_script("document.getElementById('push').scrollIntoView()")
    problems = phone.controls_inside(organizer, "#push")
    assert not problems, problems
    organizer.find_element(By.CSS_SELECTOR, "input[name='kind-liked']").click()
    click_and_load(organizer, organizer.find_element(By.ID, "save-push-kinds"), "done=push", "the kinds saved")
    assert not organizer.find_element(By.CSS_SELECTOR, "input[name='kind-liked']").is_selected()
    assert organizer.find_element(By.CSS_SELECTOR, "input[name='kind-commented']").is_selected()
    shot(organizer, "account-push")
    french_dark(organizer, server, "/account#push", "account-push-fr-dark")
    check("the bell offers notices (on 'this computer' to a browser without a touch screen, 'this phone' with one); the service worker shows them as worded and opens only our pages; My account chooses which")


def scene(path, seed):
    """A photo-like JPEG, different for each seed (shapes at several scales and grain), as SelectionTests makes them:
    noise alone would look alike to the selection's perceptual hash."""
    folder = tempfile.mkdtemp(prefix="scene-")
    try:
        name = lambda suffix: os.path.join(folder, f"{suffix}.v")
        for arguments in (["perlin", name("shapes"), "800", "600", "--cell-size", "100", "--seed", str(seed), "--uchar"],
                          ["gaussnoise", name("grain"), "800", "600", "--mean", "0", "--sigma", "14", "--seed", str(seed)],
                          ["add", name("shapes"), name("grain"), name("sum")], ["cast", name("sum"), name("scene"), "uchar"],
                          ["copy", name("scene"), path + "[Q=90]"]):
            subprocess.run(["vips"] + arguments, check=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def capsule_checks(organizer, server, downloads, check):
    """CAP-2: last month's photos, once developed, make its capsule within seconds; the countdown; enlarge;
    edit (fewer photos, one replaced, words, a song) and save; the collage; the notice in the bell; en and fr."""
    last_month = datetime.datetime.now(datetime.timezone.utc).replace(day=1) - datetime.timedelta(days=1)
    month = last_month.strftime("%Y-%m")
    cookie = session_cookie(organizer)
    for day in range(1, 6):
        path = os.path.join(downloads, f"capsule-{day}.jpg")
        scene(path, seed=day)
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-DateTimeOriginal={last_month:%Y:%m}:{day:02d} 12:00:00", path], check=True)
        with open(path, "rb") as handle:
            request = urllib.request.Request(server.base + "/api/v1/library/assets", data=handle.read(), method="POST", headers={
                "Cookie": f"disposable_session={cookie}", "Content-Type": "image/jpeg", "Origin": server.base})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201
    released = lambda d: any(c["month"] == month for c in server.api("/api/v1/library/capsules", cookie)["items"])
    # A minute after the last of the month's photos arrived (an import settles), within the announcer's 15 s.
    wait(organizer, released, f"the capsule of {month}", timeout=180)
    organizer.get(server.base + "/capsules")
    countdown = organizer.find_element(By.ID, "countdown").text
    assert re.fullmatch(r"in \d+ (days?|hours?|minutes?)( \d+ (hours?|minutes?))?", countdown), countdown
    item = organizer.find_element(By.CSS_SELECTOR, f"#capsule-list a[href='/capsules/{month}']")
    words = " ".join(item.get_attribute("textContent").split())
    assert last_month.strftime("%B %Y") in words and "5 photos" in words, words
    shot(organizer, "capsules")
    check("last month's photos make its capsule once developed; the history lists it and the countdown counts down")

    click_and_load(organizer, item, f"/capsules/{month}", "the capsule page")
    tiles = lambda d: [li.get_attribute("data-id") for li in d.find_elements(By.CSS_SELECTOR, "#capsule-photos li")]
    assert len(tiles(organizer)) == 5
    organizer.find_element(By.CSS_SELECTOR, "#capsule-photos li button").click()
    wait(organizer, lambda d: d.execute_script("return document.getElementById('viewer').open && document.getElementById('viewer-image').src.includes('/preview')"), "the photo enlarged")
    organizer.find_element(By.ID, "viewer").send_keys("\ue014")  # ArrowRight
    wait(organizer, lambda d: d.find_element(By.ID, "viewer-position").text == "2 / 5", "the next photo")
    organizer.find_element(By.ID, "viewer-close").click()
    shot(organizer, "capsule")

    # Fewer photos, words and a song; saved, then one of the three replaced by one left out.
    organizer.find_element(By.ID, "capsule-edit").click()
    count = organizer.find_element(By.ID, "capsule-count")
    count.clear()
    count.send_keys("3")
    organizer.find_element(By.ID, "capsule-quote-input").send_keys("Autumn <b>walks</b>")
    organizer.find_element(By.ID, "capsule-song-title").send_keys("Les feuilles mortes")
    organizer.find_element(By.ID, "capsule-song-artist").send_keys("Yves Montand")
    shot(organizer, "capsule-edit")
    old = organizer.find_element(By.TAG_NAME, "html")
    organizer.find_element(By.ID, "capsule-save").click()
    wait(organizer, lambda d: not old_is_current(old) and len(tiles(d)) == 3, "three photos after saving")
    quote = organizer.find_element(By.ID, "capsule-quote")
    assert quote.text == "Autumn <b>walks</b>" and not quote.find_elements(By.TAG_NAME, "b"), quote.text
    assert "Les feuilles mortes — Yves Montand" in organizer.find_element(By.ID, "capsule-song").text
    before = tiles(organizer)
    organizer.find_element(By.ID, "capsule-edit").click()
    organizer.find_element(By.CSS_SELECTOR, "#capsule-photos li button").click()
    choice = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#picker-photos button")), None), "the month's other photos")
    assert len(organizer.find_elements(By.CSS_SELECTOR, "#picker-photos button")) == 2
    shot(organizer, "capsule-pick")
    choice.click()
    old = organizer.find_element(By.TAG_NAME, "html")
    organizer.find_element(By.ID, "capsule-save").click()
    wait(organizer, lambda d: not old_is_current(old) and len(tiles(d)) == 3, "the capsule after the replacement")
    after = tiles(organizer)
    assert before[0] not in after and set(before[1:]) <= set(after), (before, after)
    # The song's clip: a 40-second MP3 picked in the form; the page then plays its first 30 seconds.
    song = os.path.join(downloads, "song.mp3")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=40", song], check=True)
    organizer.find_element(By.ID, "capsule-edit").click()
    # Choosing the clip changes the page in place; the words being typed stay.
    organizer.execute_script("window.notReloaded = true")
    organizer.find_element(By.ID, "capsule-song-artist").send_keys(" & friends")
    organizer.find_element(By.ID, "capsule-clip-file").send_keys(song)
    wait(organizer, lambda d: d.find_elements(By.ID, "capsule-clip"), "the clip on the page", timeout=60)
    assert organizer.execute_script("return window.notReloaded === true"), "the page was reloaded"
    assert organizer.find_element(By.ID, "capsule-song-artist").get_attribute("value") == "Yves Montand & friends"
    assert organizer.find_element(By.ID, "capsule-clip-remove").is_displayed()
    old = organizer.find_element(By.TAG_NAME, "html")
    organizer.find_element(By.ID, "capsule-save").click()
    wait(organizer, lambda d: not old_is_current(old) and d.find_elements(By.ID, "capsule-clip"), "saved with the clip")
    assert "Yves Montand & friends" in organizer.find_element(By.ID, "capsule-song").text
    duration = organizer.execute_async_script(
        "const done = arguments[0]; const audio = document.getElementById('capsule-clip'); audio.preload = 'metadata';"
        "audio.addEventListener('loadedmetadata', () => done(audio.duration)); audio.addEventListener('error', () => done(-1)); audio.load();")
    assert 29 < duration < 30.5, duration
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot(organizer, "capsule-dark")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    check("a capsule's photos enlarge; edited to fewer photos, one replaced, with words (as text), a song and its clip (30 s), and saved")

    # The collage to share: a JPEG 1080 px wide.
    collage = organizer.find_element(By.ID, "capsule-download").get_attribute("href")
    request = urllib.request.Request(collage, headers={"Cookie": f"disposable_session={cookie}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.headers["Content-Type"] == "image/jpeg"
        image = os.path.join(downloads, "capsule-collage.jpg")
        with open(image, "wb") as handle:
            handle.write(response.read())
    width = subprocess.run(["vipsheader", "-f", "width", image], capture_output=True, text=True, check=True).stdout.strip()
    assert width == "1080", width
    # The bell tells of it, and its link opens the capsule.
    organizer.get(server.base + "/capsules")
    organizer.find_element(By.ID, "bell").click()
    notice = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, f"#notifications a[href='/capsules/{month}']")), None), "the capsule's notice")
    assert notice.text.startswith(f"Your capsule of {last_month:%B %Y} is here!"), notice.text
    click_and_load(organizer, notice, f"/capsules/{month}", "the capsule from its notice")
    check("its collage is a 1080 px JPEG; the bell told of it and leads to it")

    organizer.get(f"{server.base}/language/fr?back=/capsules/{month}")
    wait(organizer, lambda d: d.find_element(By.ID, "capsule-edit").text == "Modifier", "the capsule in French")
    shot(organizer, "capsule-fr")
    organizer.get(server.base + "/capsules")
    assert organizer.find_element(By.ID, "countdown").text.startswith("dans "), organizer.find_element(By.ID, "countdown").text
    shot(organizer, "capsules-fr")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot(organizer, "capsules-fr-dark")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    organizer.get(f"{server.base}/language/en?back=/")
    check("the capsule pages in French, light and dark")


def friends_checks(organizer, server, mail, check):
    """stories 10-14, 46: someone asks the organizer by her username; her bell says so; on the friends page
    she accepts, and sees her new friend (never the e-mail address)."""
    def call(method, path, body, token=None):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(server.base + path, data=json.dumps(body).encode(), method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    assert call("POST", "/api/v1/users", {"email": "zoe.friend@example.com", "password": "zoe password", "name": "Zoé <i>"}) == {"status": "confirmation-sent"}
    message = wait(organizer, lambda d: next((m for m in mail.messages() if "zoe.friend@example.com" in m), None), "Zoé's confirmation mail")
    link = next(word for word in mail_body(message).split() if "/register/confirm/" in word)
    call("POST", "/api/v1/registrations/" + link.rsplit("/", 1)[1], {})
    zoe = call("POST", "/api/v1/sessions", {"email": "zoe.friend@example.com", "password": "zoe password"})["token"]
    assert call("POST", "/api/v1/friends", {"username": "Emma.B"}, zoe)["status"] == "pending"
    organizer.get(server.base + "/friends")
    wait(organizer, lambda d: d.find_element(By.ID, "bell-count").is_displayed(), "the bell tells of the request")
    organizer.find_element(By.ID, "bell").click()
    notice = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#notifications a[href='/friends']")), None), "the request's notice")
    assert notice.text.startswith("Zoé <i> wants to be your friend."), notice.text
    organizer.find_element(By.ID, "notifications-close").click()
    incoming = organizer.find_element(By.ID, "incoming")
    assert "Zoé <i>" in incoming.text and "@" not in incoming.text, "Zoé has no username (nor anyone else's)"
    assert not incoming.find_elements(By.TAG_NAME, "i") and "zoe.friend@example.com" not in organizer.page_source
    shot(organizer, "friends-request")
    click_and_load(organizer, incoming.find_element(By.CSS_SELECTOR, "form[action$='/accept'] button"), "done=accepted", "accepted")
    assert "Zoé <i>" in organizer.find_element(By.ID, "friend-list").text and not organizer.find_element(By.ID, "incoming").is_displayed()
    shot(organizer, "friends")
    told = urllib.request.Request(server.base + "/api/v1/notifications", headers={"Authorization": f"Bearer {zoe}", "Accept": "application/json"})
    with urllib.request.urlopen(told, timeout=30) as response:
        assert any(n["kind"] == "friend-accepted" for n in json.loads(response.read())["items"])
    check("a friend request by username rings the bell; accepted on the friends page, both are friends and the asker is told")


def board_checks(organizer, server, check, drivers):
    """stories 20-23, 34, 47-48: the organizer shares last month's capsule to the Story Board; her friend
    Zoé, signed in on her own phone, sees it there, enlarges a photo, reacts and comments; the organizer is told and
    sees both on the board."""
    last_month = datetime.datetime.now(datetime.timezone.utc).replace(day=1) - datetime.timedelta(days=1)
    organizer.get(f"{server.base}/capsules/{last_month:%Y-%m}")
    organizer.find_element(By.ID, "board-share").click()
    wait(organizer, lambda d: d.find_element(By.ID, "board-shared").is_displayed(), "on the Story Board (the page changed in place)")
    zoe = browser(); drivers.append(zoe)
    zoe.get(server.base + "/login?next=/board")
    zoe.find_element(By.ID, "email").send_keys("zoe.friend@example.com")
    zoe.find_element(By.ID, "password").send_keys("zoe password")
    zoe.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    card = wait(zoe, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#board-list li.board-card")), None), "Emma's capsule on Zoé's board")
    assert "Emma" in card.text and "Autumn <b>walks</b>" in card.text and not card.find_elements(By.TAG_NAME, "b"), card.text
    wait(zoe, lambda d: d.execute_script("return [...document.querySelectorAll('.board-photos img')].every(i => i.complete && i.naturalWidth > 0)"), "the shared photos load for a friend")
    card.find_element(By.CSS_SELECTOR, ".board-photos button").click()
    wait(zoe, lambda d: d.execute_script("return document.getElementById('viewer').open && document.getElementById('viewer-image').naturalWidth > 0"), "a photo enlarged")
    zoe.find_element(By.ID, "viewer-close").click()
    zoe.find_element(By.CSS_SELECTOR, "#board-list .reaction[data-emoji='❤️']").click()
    # The card is drawn again after each change: read it by script (an element found before may be gone).
    text_of = lambda d, selector: d.execute_script("return document.querySelector(arguments[0])?.textContent ?? ''", selector)
    wait(zoe, lambda d: text_of(d, "#board-list .reaction[data-emoji='❤️']") == "❤️ 1", "the reaction counted")
    comment = zoe.find_element(By.CSS_SELECTOR, "#board-list .board-comment input")
    comment.send_keys("Beautiful <3")
    zoe.find_element(By.CSS_SELECTOR, "#board-list .board-comment button").click()
    wait(zoe, lambda d: "Beautiful <3" in text_of(d, "#board-list .board-comments"), "the comment shown")
    shot(zoe, "board")
    organizer.get(server.base + "/board")
    wait(organizer, lambda d: d.find_element(By.ID, "bell-count").text == "2", "the owner's bell: a reaction and a comment")
    wait(organizer, lambda d: "Beautiful <3" in text_of(d, "#board-list"), "the comment on the owner's board")
    assert organizer.find_element(By.CSS_SELECTOR, "#board-list .reaction[data-emoji='❤️']").text == "❤️ 1"
    organizer.find_element(By.ID, "bell").click()
    texts = wait(organizer, lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "#notifications a[href='/board'] span")] or None, "the notices")
    assert any(t.startswith("Zoé <i> reacted ❤️ to your capsule.") for t in texts) and any("Beautiful <3" in t for t in texts), texts
    organizer.find_element(By.ID, "notifications-close").click()
    shot(organizer, "board-owner")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot(organizer, "board-owner-dark")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    zoe.get(f"{server.base}/language/fr?back=/board")
    wait(zoe, lambda d: d.find_elements(By.CSS_SELECTOR, "#board-list li.board-card"), "the board in French")
    shot(zoe, "board-fr")
    check("a shared capsule is on a friend's Story Board: she enlarges it, reacts and comments; the owner is told and sees both")


def recap_checks(organizer, server, ben, check, drivers):
    """CAP-1: the organizer previews the recap of an event with four photos (two of them copies of one
    picture); Ben, a guest, waits until the end; once it is over he is told, sees one photo per picture and the
    collage — in English and, for Chloé, in French."""
    event_id = create_event(organizer, server, "Recap party", 5)
    link = decode_qr(organizer)
    code = link.split("?")[0].rsplit("/", 1)[1]
    cookie = session_cookie(organizer)
    folder = tempfile.mkdtemp(prefix="disposable-recap-")
    for seed in (31, 32, 33):
        path = os.path.join(folder, f"{seed}.jpg")
        subprocess.run(["vips", "perlin", path + "[Q=90]", "1200", "900", "--cell-size", "120", "--seed", str(seed), "--uchar"], check=True)
    subprocess.run(["vips", "copy", os.path.join(folder, "31.jpg"), os.path.join(folder, "31-copy.jpg[Q=40]")], check=True)
    for name in ("31.jpg", "32.jpg", "31-copy.jpg", "33.jpg"):
        request = urllib.request.Request(f"{server.base}/api/v1/events/{event_id}/photos", method="POST",
                                         data=open(os.path.join(folder, name), "rb").read(),
                                         headers={"Cookie": f"disposable_session={cookie}", "Content-Type": "image/jpeg",
                                                  "Origin": server.base, "Sec-Fetch-Site": "same-origin"})
        urllib.request.urlopen(request, timeout=60).read()
        time.sleep(3.5)  # taken seconds apart would be one burst
    wait_for_photos(server, cookie, event_id, 4)

    organizer.get(f"{server.base}/e/{code}/recap")
    wait(organizer, lambda d: d.execute_script("return document.getElementById('slide').naturalWidth > 0"), "the organizer's slideshow")
    assert "guests" in organizer.find_element(By.ID, "recap-note").text.lower(), organizer.find_element(By.ID, "recap-note").text
    wait(organizer, lambda d: d.execute_script("return document.getElementById('collage').naturalWidth") == 1080, "the collage")
    assert organizer.find_element(By.ID, "slide-position").text == "1 / 3", organizer.find_element(By.ID, "slide-position").text
    shot(organizer, "recap-preview")
    check("the organizer previews the recap: three photos of four (one copy left out) and the collage")

    join(ben, link, "Ben")
    ben.get(f"{server.base}/e/{code}/recap")
    wait(ben, lambda d: d.find_element(By.ID, "recap-note").is_displayed(), "Ben's waiting note")
    assert not ben.find_element(By.ID, "slideshow").is_displayed() and not ben.find_element(By.ID, "collage-box").is_displayed()
    shot(ben, "recap-waiting")

    organizer.get(f"{server.base}/events/{event_id}")
    organizer.execute_script(f"return fetch('/api/v1/events/{event_id}/end', {{method: 'POST'}}).then(r => window.ended = r.status)")
    wait(organizer, lambda d: d.execute_script("return window.ended") == 200, "the event ended")
    told = lambda d: any(n["kind"] == "recap" for n in server.api("/api/v1/notifications", session_cookie(ben))["items"])
    wait(ben, told, "Ben is told the recap is ready", timeout=60)
    ben.get(f"{server.base}/e/{code}")
    wait(ben, lambda d: d.find_element(By.ID, "bell-count").is_displayed(), "Ben's bell tells him")
    ben.find_element(By.ID, "bell").click()
    notice = wait(ben, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#notifications a[href$='/recap']")), None), "the recap notice")
    assert "Recap party" in notice.text, notice.text
    notice.click()
    wait(ben, lambda d: d.execute_script("return document.getElementById('collage').naturalWidth") == 1080, "Ben's collage")
    assert ben.find_element(By.ID, "slide-position").text == "1 / 3" and not ben.find_element(By.ID, "recap-note").is_displayed()
    shot(ben, "recap")
    chloe = browser(language="fr-FR"); drivers.append(chloe)
    join(chloe, link, "Chloé", shooting=False)
    chloe.get(f"{server.base}/e/{code}/recap")
    wait(chloe, lambda d: d.execute_script("return document.getElementById('collage').naturalWidth") == 1080, "Chloé's collage")
    assert chloe.find_element(By.ID, "recap-title").text == "Le meilleur de l'événement", chloe.find_element(By.ID, "recap-title").text
    shot(chloe, "recap-fr")
    check("once the event ends a guest is told, and sees the same three photos and the collage (en, fr)")


def viewer_checks(driver, opener, check):
    """On a guest's own photo open in the viewer: every control inside a 390 and a
    320 px screen, none over another; Enter in the caption box saves; the arrows page and focus stays inside;
    Escape closes and gives focus back to the photo's tile (`opener`, its CSS selector)."""
    problems = []
    for size in (phone.PHONE, phone.SMALL):
        phone.set_size(driver, size)
        time.sleep(0.3)
        problems += [f"{size[0]} px: {p}" for p in phone.controls_inside(driver, "dialog#viewer")]
        shot(driver, f"guest-viewer-{size[0]}")
    phone.set_size(driver, phone.DEFAULT)
    assert not problems, problems
    driver.find_element(By.ID, "viewer-caption-edit").click()
    field = wait(driver, lambda d: next((e for e in d.find_elements(By.ID, "caption-input") if e.is_displayed()), None), "the caption box")
    field.send_keys("Cake time\n")
    wait(driver, lambda d: d.find_element(By.ID, "viewer-text").text == "Cake time", "the caption saved by Enter")
    for key in ("\ue014", "\ue012", "\ue014"):  # ArrowRight, ArrowLeft, ArrowRight
        ActionChains(driver).send_keys(key).perform()
        time.sleep(0.3)
        assert driver.execute_script("return document.getElementById('viewer').open && document.getElementById('viewer').contains(document.activeElement)"), \
            "focus left the viewer"
    ActionChains(driver).send_keys("\ue00c").perform()  # Escape
    wait(driver, lambda d: not d.execute_script("return document.getElementById('viewer').open"), "Escape closes the viewer")
    assert driver.execute_script("return document.activeElement === document.querySelector(arguments[0])", opener), "focus is back on the tile"
    check("the viewer's controls fit 390 and 320 px; Enter saves a caption; the arrows keep focus inside; Escape returns it")


def selection_checks(driver, url, check):
    """A selected photo shows it — the accent frame drawn over the picture, and a check mark."""
    driver.get(url)
    tile = wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#grid li img")), None), "a photo in the gallery")
    driver.find_element(By.ID, "select-toggle").click()
    tile.click()
    item = wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#grid li.selected")), None), "the tile selected")
    time.sleep(0.3)  # the picture's transition
    box = item.rect
    accent = {"light": (0xC2, 0x41, 0x2B), "dark": (0xF0, 0x78, 0x5F)}
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        colour = phone.pixel(driver, box["x"] + 2, box["y"] + box["height"] / 2)
        assert all(abs(a - b) <= 12 for a, b in zip(colour, accent[scheme])), f"{scheme}: the frame is {colour}, not the accent"
        shot(driver, f"gallery-selected-{scheme}")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert driver.execute_script("return getComputedStyle(arguments[0], '::before').content", item) == '"✓"'
    check("a selected photo is framed in the accent over the picture, with a check mark (light and dark)")

    # With an account, the selection is also kept in my photos, beside downloading it.
    assets = ("const done = arguments[arguments.length - 1];"
              "(async () => { let n = 0, cursor = '';"
              " do { const page = await (await fetch(`/api/v1/library/assets?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json();"
              " n += page.items.length; cursor = page.nextCursor; } while (cursor); return n; })().then(done)")
    before = driver.execute_async_script(assets)
    keep = driver.find_element(By.ID, "keep-selected")
    assert keep.is_displayed() and "1" in keep.text, keep.text
    keep.click()
    said = wait(driver, lambda d: next((e.text for e in d.find_elements(By.CSS_SELECTOR, ".toast") if "1" in e.text), None), "the selection kept")
    assert driver.execute_async_script(assets) == before + 1, said
    check("a selection is kept in my photos with one tap (an account's gallery)")


def header_checks(driver, server, check):
    """Signed in, one compact header on every page — a menu on phones, its links inside the
    screen — in French and English."""
    phone.set_size(driver, phone.PHONE)
    tall = []
    for language in ("fr", "en"):
        driver.get(f"{server.base}/language/{language}?back=/events")
        for path in ("/events", "/library", "/capsules", "/moments", "/friends", "/account", "/my-data", "/help"):
            driver.get(server.base + path)
            height = driver.execute_script("return document.querySelector('header.top').getBoundingClientRect().height")
            if height > 72:
                tall.append((language, path, height))
        driver.get(server.base + "/events")
        driver.find_element(By.CSS_SELECTOR, ".menu-button").click()
        wait(driver, lambda d: d.execute_script("return document.getElementById('main-menu').matches(':popover-open')"), "the menu open")
        problems = phone.controls_inside(driver, "#main-menu")
        assert not problems, (language, problems)
        for scheme in ("light", "dark"):
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            shot(driver, f"pages/{language}-{scheme}-organizer-menu")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        ActionChains(driver).send_keys("\ue00c").perform()
        wait(driver, lambda d: not d.execute_script("return document.getElementById('main-menu').matches(':popover-open')"), "Escape closes the menu")
    phone.set_size(driver, phone.DEFAULT)
    assert not tall, tall
    check("signed in, every page's header is one line with a menu at 390 px (fr, en), its links inside the screen")


def contrast_checks(driver, guest, event_url, server, check):
    """The footer's high-contrast switch: grey text becomes the text's colour, the choice stays with the browser
    (reloaded, on another page, and on a guest's More page, where the switch also is), and turning it off undoes it."""
    def state(d):
        return d.execute_script(
            "const root = document.documentElement, style = getComputedStyle(root);"
            "return [root.dataset.contrast || '', style.getPropertyValue('--muted').trim(), style.getPropertyValue('--text').trim(),"
            " document.querySelector('.contrast-switch')?.getAttribute('aria-pressed')]")
    driver.get(server.base + "/help")
    contrast, muted, text, pressed = state(driver)
    assert contrast == "" and muted != text and pressed == "false", (contrast, muted, text, pressed)
    switch = driver.find_element(By.CSS_SELECTOR, "footer .contrast-switch")
    assert switch.is_displayed() and switch.rect["x"] + switch.rect["width"] <= driver.execute_script("return innerWidth")
    tap(driver, switch)
    wait(driver, lambda d: state(d)[0] == "more", "more contrast")
    contrast, muted, text, pressed = state(driver)
    assert pressed == "true" and muted == text, (pressed, muted, text)
    driver.get(server.base + "/privacy")
    assert state(driver)[0] == "more", "kept on the next page"
    guest.get(event_url + "/continue")
    assert state(guest)[3] == "false" and guest.find_element(By.CSS_SELECTOR, "main .contrast-switch").is_displayed()
    tap(driver, driver.find_element(By.CSS_SELECTOR, "footer .contrast-switch"))
    wait(driver, lambda d: state(d)[0] == "", "normal contrast again")
    driver.refresh()
    assert state(driver)[0] == "" and state(driver)[3] == "false", "off is kept too"
    check("the footer's high-contrast switch turns grey text to the text's colour, is kept per browser, and turns off")


def locked_settings_check(organizer, server, event_id, check):
    """Once guests have shot, the settings that cannot change any more look it (greyed, dashed), not only refuse."""
    organizer.get(f"{server.base}/events/{event_id}#settings")
    look = "const s = getComputedStyle(arguments[0]); return [arguments[0].disabled, s.borderStyle, s.backgroundColor, s.color]"
    locked = organizer.execute_script(look, organizer.find_element(By.ID, "f-shots"))
    free = organizer.execute_script(look, organizer.find_element(By.ID, "f-name"))
    assert locked[0] and not free[0], "shots per guest locked, the name not"
    assert locked[1] == "dashed" and free[1] == "solid" and locked[2] != free[2] and locked[3] != free[3], (locked, free)
    check("locked settings look locked: greyed and dashed beside the fields that can still change")


def leaving_checks(organizer, server, check, drivers):
    """Leaving on this phone asks in the app's own dialog, and coming back under the
    same name is the same guest with the same shots left; an ended event's camera says so, without the camera."""
    event_id = create_event(organizer, server, "Garden party", 3)
    qr_url = decode_qr(organizer)
    url = qr_url.split("?")[0]
    maggie = browser(); drivers.append(maggie)
    join(maggie, qr_url, "Maggie")
    shoot(maggie)
    wait(maggie, queue_empty, "Maggie's shot sent")
    maggie.get(url + "/continue")
    # More opens on its links; the QR code that signs in as Maggie stays folded until she asks for it
    assert maggie.find_element(By.CSS_SELECTOR, "main h1").text == "More"
    assert not maggie.find_element(By.ID, "continue-qr").is_displayed() and maggie.find_element(By.ID, "continue").get_attribute("open") is None
    maggie.find_element(By.CSS_SELECTOR, "#continue summary").click()
    assert maggie.find_element(By.ID, "continue-qr").is_displayed(), "the QR code, asked for"
    assert maggie.find_element(By.ID, "leave-everywhere").is_displayed(), "leaving on every phone is a choice of its own"
    tap(maggie, maggie.find_element(By.ID, "leave-phone"))
    shot(maggie, "guest-leave-dialog")
    confirm_in_app(maggie)
    wait(maggie, lambda d: d.current_url.endswith("/?left=1"), "home after leaving")
    maggie.get(url)
    assert maggie.find_elements(By.ID, "join-form"), "this phone forgot the event"
    join(maggie, qr_url, "Maggie", shooting=False)
    maggie.get(url + "/camera")
    wait(maggie, lambda d: d.find_elements(By.ID, "shots-left"), "the camera again")
    assert shots_left(maggie) == 2, "the same roll, not a new one"
    check("More opens on its links, the QR code that signs in folded; leaving on this phone asks in the app's dialog; back under the same name, the same guest and shots")

    organizer.get(f"{server.base}/events/{event_id}#danger")
    tap(organizer, organizer.find_element(By.CSS_SELECTOR, "form[action$='/end'] button"))
    confirm_in_app(organizer)
    wait(organizer, lambda d: not d.find_elements(By.CSS_SELECTOR, "form[action$='/end']"), "the event ended")
    maggie.get(url + "/camera")
    ended = maggie.find_element(By.ID, "camera-ended")
    assert ended.is_displayed() and not maggie.find_elements(By.ID, "video") and not maggie.find_elements(By.ID, "shots-left")
    assert ended.find_element(By.CSS_SELECTOR, f"a[href='/e/{url.rsplit('/', 1)[1]}']").is_displayed()
    shot(maggie, "guest-camera-ended")
    check("an ended event's camera page says so and leads to the gallery; no camera, no shots left")


def library_checks(organizer, server, downloads, check, drivers):
    """My own photos — uploads from the file picker, months in en and fr, the viewer, trash and restore,
    and an upload from another device showing up live."""
    files = []
    for name, exif in [("IMG_0514.jpg", "2023:05:14 18:30:00"), ("IMG_1225.jpg", "2021:12:25 10:00:00"), ("IMG_1226.jpg", "2021:12:26 09:00:00")]:
        path = os.path.join(downloads, name)
        subprocess.run(["vips", "gaussnoise", path + "[Q=85]", "640", "480"], check=True)
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-DateTimeOriginal={exif}", path], check=True)
        files.append(path)
    organizer.get(server.base + "/library")
    wait(organizer, lambda d: d.find_element(By.ID, "empty").is_displayed(), "the empty library")
    organizer.find_element(By.ID, "library-files").send_keys("\n".join(files))
    def ready_tiles(d):
        return d.execute_script("return [...document.querySelectorAll('#timeline li img')].filter(i => i.complete && i.naturalWidth > 0).length")
    wait(organizer, lambda d: ready_tiles(d) == 3, "three photos in my library, with thumbnails", timeout=60)
    headings = [h.text for h in organizer.find_elements(By.CSS_SELECTOR, "#timeline .month h2")]
    assert headings == ["May 2023", "December 2021"], headings
    shot(organizer, "library-en")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot(organizer, "library-dark")
    organizer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    check("my photos: three files picked at once are uploaded, shown newest capture first under 'May 2023' and 'December 2021'")

    # The viewer: the preview, arrow keys, delete into the trash. Read in Tokyo, a photo whose camera wrote 18:30 (no
    # offset) still says 18:30: the clock where it was taken, not the reader's.
    organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    for _ in range(2):  # the first visit tells the server the browser's zone, the second is shown in it
        organizer.get(server.base + "/library")
    wait(organizer, lambda d: ready_tiles(d) == 3, "the library again")
    organizer.find_element(By.CSS_SELECTOR, "#timeline li button").click()
    wait(organizer, lambda d: d.execute_script("return document.getElementById('viewer').open && document.getElementById('viewer-image').src.includes('/preview')"), "the viewer shows the preview")
    first_caption = organizer.find_element(By.ID, "viewer-caption").text
    assert "IMG_0514.jpg" in first_caption and "18:30" in first_caption and "14" in first_caption, first_caption
    organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    check("a photo's time in my library is the clock where it was taken (18:30 read in Tokyo), not the reader's")
    organizer.find_element(By.ID, "viewer").send_keys("\ue014")  # ArrowRight
    wait(organizer, lambda d: "IMG_1226.jpg" in d.find_element(By.ID, "viewer-caption").text, "the next photo after ArrowRight")
    organizer.find_element(By.ID, "viewer-delete").click()
    wait(organizer, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline li")) == 2, "the photo left the timeline")
    organizer.get(server.base + "/library/trash")
    wait(organizer, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline li img")) == 1, "the photo in the trash")
    assert "Photos stay in the trash for 30 days after you delete them" in organizer.find_element(By.ID, "trash-note").text
    shot(organizer, "library-trash")
    organizer.find_element(By.CSS_SELECTOR, "#timeline li button").click()
    wait(organizer, lambda d: d.find_element(By.ID, "viewer-restore").is_displayed(), "the restore button")
    organizer.find_element(By.ID, "viewer-restore").click()
    wait(organizer, lambda d: d.find_element(By.ID, "empty").is_displayed(), "the trash is empty after restoring")
    organizer.get(server.base + "/library")
    wait(organizer, lambda d: ready_tiles(d) == 3, "the restored photo back in the timeline")
    check("the viewer pages with the arrow keys; a deleted photo waits in the trash (30 days) and is restored")

    # Another device adds a photo: it shows up here without a reload.
    organizer.execute_script("window.notReloaded = true")
    other = os.path.join(downloads, "IMG_0601.jpg")
    subprocess.run(["vips", "gaussnoise", other + "[Q=85]", "500", "400"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2023:06:01 12:00:00", other], check=True)
    with open(other, "rb") as handle:
        request = urllib.request.Request(server.base + "/api/v1/library/assets", data=handle.read(), method="POST", headers={
            "Cookie": f"disposable_session={session_cookie(organizer)}", "Content-Type": "image/jpeg", "Origin": server.base})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
    wait(organizer, lambda d: ready_tiles(d) == 4, "the other device's photo, live")
    assert organizer.execute_script("return window.notReloaded === true")
    headings = [h.text for h in organizer.find_elements(By.CSS_SELECTOR, "#timeline .month h2")]
    assert headings == ["June 2023", "May 2023", "December 2021"], headings
    check("a photo added from another device appears in my timeline live, under its month")

    # LIB-3: a motion photo (a JPEG with its MP4 after it, as Pixel phones write them) plays while pressed.
    still = os.path.join(downloads, "still.jpg")
    clip = os.path.join(downloads, "clip.mp4")
    subprocess.run(["vips", "gaussnoise", still + "[Q=85]", "480", "360"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2023:06:02 12:00:00", still], check=True)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=15",
                    "-pix_fmt", "yuv420p", "-c:v", "libx264", clip], check=True)
    motion_photo = os.path.join(downloads, "PXL_20230602_MP.jpg")
    with open(motion_photo, "wb") as out, open(still, "rb") as first, open(clip, "rb") as second:
        out.write(first.read() + second.read())
    organizer.find_element(By.ID, "library-files").send_keys(motion_photo)
    wait(organizer, lambda d: ready_tiles(d) == 5 and d.find_elements(By.CSS_SELECTOR, "#timeline li .live-badge"), "the live photo, with its badge")
    organizer.find_element(By.CSS_SELECTOR, "#timeline li .live-badge").find_element(By.XPATH, "..").click()
    wait(organizer, lambda d: d.find_element(By.ID, "viewer-live").is_displayed(), "LIVE in the viewer")
    ActionChains(organizer).click_and_hold(organizer.find_element(By.ID, "viewer-figure")).perform()
    wait(organizer, lambda d: d.execute_script("const v = document.getElementById('viewer-motion'); return !v.hidden && !v.paused && v.currentTime > 0.2"),
         "the moment plays while pressed")
    shot(organizer, "library-live")
    ActionChains(organizer).release().perform()
    wait(organizer, lambda d: d.execute_script("return document.getElementById('viewer-motion').hidden"), "the still again when let go")
    organizer.find_element(By.ID, "viewer-close").click()
    check("a motion photo shows LIVE, and plays its moment while pressed")

    # LIB-1: a video (a browser's WebM, VP8 and Opus) shows its poster and length, and plays as H.264 in the viewer.
    video = os.path.join(downloads, "party.webm")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=15",
                    "-f", "lavfi", "-i", "sine=duration=2", "-c:v", "libvpx", "-b:v", "300k", "-c:a", "libopus", "-shortest",
                    "-metadata", "creation_time=2023-06-03T18:00:00Z", video], check=True)
    organizer.find_element(By.ID, "library-files").send_keys(video)
    wait(organizer, lambda d: ready_tiles(d) == 6 and d.find_elements(By.CSS_SELECTOR, "#timeline li .video-badge"), "the video, with its length",
         timeout=90)
    badge = organizer.find_element(By.CSS_SELECTOR, "#timeline li .video-badge")
    assert badge.text == "▶ 0:02", badge.text
    badge.find_element(By.XPATH, "..").click()
    wait(organizer, lambda d: d.find_element(By.ID, "viewer-video").is_displayed(), "the player in the viewer")
    assert not organizer.find_element(By.ID, "viewer-image").is_displayed()
    caption = organizer.find_element(By.ID, "viewer-caption").text
    assert "3 June 2023" in caption, caption  # the video's own recording date
    organizer.execute_script("const v = document.getElementById('viewer-video'); v.muted = true; v.play();")
    wait(organizer, lambda d: d.execute_script("const v = document.getElementById('viewer-video'); return !v.paused && v.currentTime > 0.3"),
         "the video plays")
    shot(organizer, "library-video")
    organizer.find_element(By.ID, "viewer-close").click()
    check("a video shows its length on its tile and plays in the viewer")

    # French: the same library, months in French.
    french = browser(language="fr-FR"); drivers.append(french)
    french.get(server.base + "/")
    french.add_cookie({"name": "disposable_session", "value": session_cookie(organizer), "path": "/"})
    french.get(server.base + "/library")
    wait(french, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline .month h2")) == 3, "the French timeline")
    headings = [h.text for h in french.find_elements(By.CSS_SELECTOR, "#timeline .month h2")]
    assert headings == ["Juin 2023", "Mai 2023", "Décembre 2021"], headings
    assert french.find_element(By.TAG_NAME, "h1").text == "Mes photos"
    shot(french, "library-fr")
    assert not page_errors(organizer) and not page_errors(french), page_errors(organizer) + page_errors(french)
    french.quit(); drivers.remove(french)
    check("in French, the months read 'Juin 2023', 'Mai 2023', 'Décembre 2021'")

    # A photo taken at 23:12 in Paris (its EXIF says +02:00) reads 23:12 on 30 June wherever it is read — from
    # New York, and from Tokyo where that moment is already July: the clock where it was taken.
    paris = os.path.join(downloads, "IMG_PARIS.jpg")
    subprocess.run(["vips", "gaussnoise", paris + "[Q=85]", "400", "300"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2026:06:30 23:12:00", "-OffsetTimeOriginal=+02:00", paris], check=True)
    with open(paris, "rb") as handle:
        request = urllib.request.Request(server.base + "/api/v1/library/assets", data=handle.read(), method="POST", headers={
            "Cookie": f"disposable_session={session_cookie(organizer)}", "Content-Type": "image/jpeg", "Origin": server.base,
            "X-File-Name": "IMG_PARIS.jpg"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        paris_id = json.loads(response.read())["id"]
    wait_for_asset(server, session_cookie(organizer), paris_id)  # its capture time is read from the file by its render
    for zone in ["Europe/Paris", "America/New_York", "Asia/Tokyo"]:
        time_text, month = "30 June 2026 at 23:12", "June 2026"
        organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
        organizer.get(server.base + "/library")
        wait(organizer, lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline .month h2"), "the timeline")
        heading = organizer.find_element(By.CSS_SELECTOR, "#timeline .month h2").text
        assert heading == month, (zone, heading)
        organizer.find_element(By.CSS_SELECTOR, "#timeline li button").click()
        caption = wait(organizer, lambda d: "IMG_PARIS" in d.find_element(By.ID, "viewer-caption").text and d.find_element(By.ID, "viewer-caption").text, "the Paris photo")
        assert time_text in caption, (zone, caption)
        organizer.find_element(By.ID, "viewer-close").click()
    organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    check("a photo's capture time is the clock where it was taken: 23:12 on 30 June read from Paris, New York and Tokyo")


def guest_signup_checks(organizer, server, mail, check, drivers):
    """A guest who creates an account mid-event goes on as that guest: the same roll, not a fresh one."""
    create_event(organizer, server, "Iris's party", shots=3)
    qr_url = decode_qr(organizer)
    iris = browser(); drivers.append(iris)
    phone.set_size(iris, phone.PHONE)
    join(iris, qr_url, "Iris")
    shoot(iris)
    wait(iris, queue_empty, "Iris's photo sent")
    left = shots_left(iris)
    camera = iris.current_url.split("?")[0]
    # More → "Keep your photos with an account": Create an account.
    iris.find_element(By.CSS_SELECTOR, "a[href$='/continue']").click()
    register = wait(iris, lambda d: next(iter(d.find_elements(By.ID, "keep-register")), None), "the account offer on More")
    iris.execute_script("arguments[0].scrollIntoView({block: 'center'})", register)
    problems = phone.controls_inside(iris, "#keep-account")
    assert not problems, problems
    shot(iris, "guest-keep-account")
    findings = axe_light_and_dark(iris, "More with the account offer")
    assert not findings, findings
    more = iris.current_url.split(server.base, 1)[1]
    french_dark(iris, server, more, "guest-keep-account-fr-dark")
    register = wait(iris, lambda d: next(iter(d.find_elements(By.ID, "keep-register")), None), "the account offer again")
    register.click()
    wait(iris, lambda d: d.find_elements(By.ID, "email"), "the register page")
    email = f"iris-{time.time_ns()}@example.com"
    iris.find_element(By.ID, "name").send_keys("Iris")
    iris.find_element(By.ID, "email").send_keys(email)
    iris.find_element(By.ID, "password").send_keys("a good password")
    iris.find_element(By.NAME, "terms").click()
    problems = phone.controls_inside(iris, "main")
    assert not problems, problems
    iris.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    message = wait(iris, lambda d: next((m for m in mail.messages() if email in m), None), "the confirmation mail")
    iris.get(next(word for word in mail_body(message).split() if "/register/confirm/" in word))
    iris.find_element(By.ID, "confirm-account").click()
    wait(iris, lambda d: "/register/confirm" not in d.current_url, "signed in after confirming")
    # Signed in, the event's camera is hers with the shots she had left: no join form, no "Iris 2".
    iris.get(camera)
    wait(iris, lambda d: d.find_elements(By.ID, "shots-left"), "the camera, not the join form")
    assert not iris.find_elements(By.ID, "join-form"), "asked to join again"
    assert shots_left(iris) == left, (shots_left(iris), left)
    shot(iris, "guest-signed-up-camera")
    iris.get(server.base + "/library/events")
    wait(iris, lambda d: d.find_elements(By.CSS_SELECTOR, "main img, main li"), "From events lists her photo")
    check("a guest who signs up mid-event (390 px, from More) keeps her roll and her photo; no second guest")
    drivers.remove(iris)
    iris.quit()  # one browser fewer for the rest of the run


def staging_full_checks(check, drivers):
    """When the server has no room to stage a large photo in pieces (507), the phone sends it in one request."""
    # A server of its own with the smallest staging room (1 GB: a network holds at most 125 MB of an event's share).
    server = Server(extra=["--max-staged-gb", "1"])
    try:
        staging_full_on(server, check, drivers)
    finally:
        server.stop()


def staging_full_on(server, check, drivers):
    organizer = browser(); drivers.append(organizer)
    organizer.get(server.base + "/register")
    organizer.find_element(By.ID, "name").send_keys("Dana")
    organizer.find_element(By.ID, "email").send_keys("dana@example.com")
    organizer.find_element(By.ID, "password").send_keys("a good password")
    organizer.find_element(By.NAME, "terms").click()
    organizer.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait(organizer, lambda d: d.current_url.endswith("/events"), "signed up")
    event_id = create_event(organizer, server, "Full staging", shots=30)
    qr_url = decode_qr(organizer)
    cleo = browser(); drivers.append(cleo)
    join(cleo, qr_url, "Cleo", shooting=False)
    # Announced uploads of 50 MB, no byte sent: each holds the first 16 MB of room until the network's share is gone.
    statuses = cleo.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const metadata = 'target ' + btoa('event:' + arguments[0]) + ',source ' + btoa('library');
        (async () => {
          const statuses = [];
          for (let i = 0; i < 12; i++) {
            const answer = await fetch('/api/v1/uploads', { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '52428800', 'Upload-Metadata': metadata } });
            statuses.push(answer.status);
          }
          return statuses;
        })().then(done, (error) => done(String(error)));""", event_id)
    assert 507 in statuses, statuses
    # A photo above the size that goes in pieces (4 MB): refused staging, it goes whole, and is in the event.
    folder = tempfile.mkdtemp(prefix="disposable-big-")
    big = os.path.join(folder, "big.jpg")
    noise, grey = os.path.join(folder, "noise.v"), os.path.join(folder, "grey.v")
    for command in (["vips", "gaussnoise", noise, "3000", "2000", "--mean", "128", "--sigma", "60"], ["vips", "cast", noise, grey, "uchar"],
                    ["vips", "copy", grey, big + "[Q=98]"]):
        subprocess.run(command, check=True)
    assert os.path.getsize(big) > 4 * 1024 * 1024, os.path.getsize(big)
    cleo.find_element(By.ID, "file-input").send_keys(big)
    wait(cleo, queue_empty, "the large photo sent", timeout=RENDER_WAIT)
    cookie = session_cookie(cleo)
    sent = wait(cleo, lambda d: server.api(f"/api/v1/events/{event_id}/photos?limit=10", cookie)["items"], "the photo in the event")
    assert len(sent) == 1, sent
    check("a large photo the server has no room to stage in pieces (507) is sent in one request and lands in the event")
    for driver in (organizer, cleo):
        drivers.remove(driver)
        driver.quit()


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    mail = MailSink()
    server = Server(mail)
    downloads = tempfile.mkdtemp(prefix="disposable-downloads-")
    drivers = []
    checks = []

    def check(name):
        checks.append(name)
        print(f"  ok  {name}", flush=True)

    try:
        organizer = browser(downloads=downloads); drivers.append(organizer)
        organizer.get(server.base + "/")
        shot(organizer, "home")
        event_id = register_and_create_event(organizer, server, mail, "Leo's baptism", shots=3)
        shot(organizer, "organizer-event")
        check("an organizer registers and creates an event")
        qr_url = decode_qr(organizer)
        url = qr_url.split("?")[0]  # the event's pages; the QR's key is for joining
        check("the QR code on the event page decodes with zbarimg to the join link")
        # A first event opens with a short guide; its steps lead to the page's parts, on the screen.
        guide = organizer.find_element(By.ID, "first-event-guide")
        steps = [link.get_attribute("href").rsplit("#", 1)[1] for link in guide.find_elements(By.CSS_SELECTOR, "li a")]
        assert steps == ["settings", "share", "wall", "overview"], steps
        organizer.execute_script("arguments[0].scrollIntoView({block: 'center'})", guide)
        problems = phone.controls_inside(organizer, "#first-event-guide")
        assert not problems, problems
        french_dark(organizer, server, f"/events/{event_id}", "organizer-first-event-fr-dark")
        check("a first event opens with a short guide to its settings, invitations, the day and after")
        organizer.execute_script("window.scrollTo(0, 0)")

        # Share sends the name, the link, the code, "no app needed" and the QR image.
        organizer.execute_script("navigator.canShare = () => true;"
                                 "navigator.share = async (data) => { window.shared = {text: data.text, files: (data.files || []).map(f => f.type)}; };")
        organizer.find_element(By.ID, "share-button").click()
        shared = wait(organizer, lambda d: d.execute_script("return window.shared"), "the share sheet opened")
        code = url.rsplit("/", 1)[1]
        assert "Leo's baptism" in shared["text"] and qr_url in shared["text"] and code in shared["text"], shared
        assert "no app" in shared["text"] and shared["files"] == ["image/png"], shared
        check("Share carries the event's name, link, code, 'no app needed' and the QR image")

        # QR-3: the table card prints on one sheet of its own size, A6 or A5, not the printer's Letter.
        for size, points in [("A6", (297.6, 419.5)), ("A5", (419.5, 595.3))]:
            organizer.get(f"{server.base}/events/{event_id}/card" + ("?size=a5" if size == "A5" else ""))
            pdf = base64.b64decode(organizer.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True})["data"])
            boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)", pdf)
            assert len(boxes) == 1, f"{size}: {len(boxes)} pages"
            width, height = (float(value) for value in boxes[0])
            assert abs(width - points[0]) < 2 and abs(height - points[1]) < 2, f"{size}: printed on {width}×{height} pt"
        organizer.get(f"{server.base}/events/{event_id}")
        check("the table card prints on one A6 or A5 sheet")

        # An error in a form sent back is on screen, its field focused.
        organizer.find_element(By.ID, "confirm").send_keys("not the name")
        organizer.find_element(By.CSS_SELECTOR, "form[action$='/delete'] button[type=submit]").click()
        error = wait(organizer, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, ".field-error")), None), "the delete form's error")
        in_view = organizer.execute_script("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight", error)
        assert in_view and organizer.execute_script("return document.activeElement.id") == "confirm", "the error is off-screen"
        check("a form's error is scrolled into view and its field focused")
        organizer_cookie = session_cookie(organizer)
        library_checks(organizer, server, downloads, check, drivers)
        moments_checks(organizer, server, check)
        profile_checks(organizer, server, check)
        capsule_checks(organizer, server, downloads, check)
        friends_checks(organizer, server, mail, check)
        board_checks(organizer, server, check, drivers)
        instagram_checks(organizer, server, downloads, check)
        music_checks(organizer, server, check)
        devices_checks(organizer, server, check)
        co_organizer_checks(organizer, server, mail, check, drivers)
        my_shots_checks(organizer, server, check)
        share_target_checks(organizer, server, downloads, check)
        focus_checks(organizer, server, check)
        push_checks(organizer, server, check)
        openid_checks(check, drivers)
        first_look_checks(check, drivers)
        guest_signup_checks(organizer, server, mail, check, drivers)
        staging_full_checks(check, drivers)

        ana = browser(); drivers.append(ana)
        ben = browser(); drivers.append(ben)
        ana.get(url)
        shot(ana, "guest-join")
        join(ana, qr_url, "Ana", walk_intro=True)
        # Each module is fetched once (pages and imports use the same versioned URL).
        loads = ana.execute_script("return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/static/app.js'))")
        assert len(loads) == 1, loads
        shot(ana, "guest-camera")
        join(ben, qr_url, "Ben")
        assert shots_left(ana) == 3 and shots_left(ben) == 3
        check("two guests open the QR link, join with a name and see the camera")

        # Each photo appears in the other's gallery, live: the page is never reloaded.
        ben.get(url)
        wait(ben, lambda d: d.execute_script("return document.querySelector('#empty') && !document.querySelector('#empty').hidden || document.querySelectorAll('#grid li').length > 0"), "Ben's gallery loaded")
        ben.execute_script("window.notReloaded = true")
        shoot(ana)
        wait(ana, queue_empty, "Ana's photo sent")
        ana_photos = wait_for_photos(server, organizer_cookie, event_id, 1)
        wait(ben, lambda d: ana_photos[0]["id"] in gallery_ids(d), "Ana's photo in Ben's gallery without reload")
        assert ben.execute_script("return window.notReloaded === true")
        alt = wait(ben, lambda d: d.find_element(By.CSS_SELECTOR, tile_of(ana_photos[0]["id"], "img")).get_attribute("alt"), "the tile's text")
        assert alt.startswith("Photo by Ana, "), alt
        shot(ben, "guest-gallery")

        ana.get(url)
        wait(ana, lambda d: ana_photos[0]["id"] in gallery_ids(d), "Ana's gallery loaded")
        ana.execute_script("window.notReloaded = true")
        ben.get(url + "/camera")
        wait(ben, lambda d: d.find_element(By.ID, "shutter").is_enabled(), "Ben's camera")
        shoot(ben)
        wait(ben, queue_empty, "Ben's photo sent")
        ben_photo = wait_for_photos(server, organizer_cookie, event_id, 1, "Ben")[0]
        wait(ana, lambda d: ben_photo["id"] in gallery_ids(d), "Ben's photo in Ana's gallery without reload")
        assert ana.execute_script("return window.notReloaded === true")
        check("each guest's photo appears in the other's gallery without a reload")


        # Offline: the shot waits in the queue, and is sent exactly once when the network is back.
        ben.execute_cdp_cmd("Network.enable", {})
        ben.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait(ben, lambda d: d.find_element(By.ID, "offline").is_displayed(), "offline banner")
        shoot(ben)
        wait(ben, lambda d: d.find_element(By.ID, "queue-status").is_displayed(), "queue banner while offline")
        shot(ben, "guest-offline")
        time.sleep(3)  # retries happen meanwhile; none may get through
        assert not queue_empty(ben)
        assert len([p for p in photos(server, organizer_cookie, event_id) if p["shooter"]["name"] == "Ben"]) == 1
        ben.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait(ben, queue_empty, "queue drained after coming back online", timeout=60)
        ben.refresh()
        wait_for_photos(server, organizer_cookie, event_id, 2, "Ben")
        time.sleep(3)  # a duplicate would be processed by now
        wait_for_photos(server, organizer_cookie, event_id, 2, "Ben")
        assert len(server.api(f"/api/v1/events/{event_id}/photos?mine=true", session_cookie(ben))["items"]) == 2
        check("a shot taken offline is uploaded exactly once when the guest is back online")

        # SOC-1 (after Ben's last shots: reloading the camera would replay the fake camera's first frame): Ben captions his photo; Ana, looking at it, sees the caption arrive (no edit button for her).
        open_tile(ana, ben_photo["id"])
        wait(ana, lambda d: d.find_element(By.ID, "viewer").is_displayed(), "Ana's viewer on Ben's photo")
        assert not ana.find_element(By.ID, "viewer-caption-edit").is_displayed()
        ben.get(url)
        wait(ben, lambda d: ben_photo["id"] in gallery_ids(d), "Ben's gallery")
        open_tile(ben, ben_photo["id"])
        wait(ben, lambda d: d.find_element(By.ID, "viewer-caption-edit").is_displayed(), "Add a caption, on his own photo")
        ben.find_element(By.ID, "viewer-caption-edit").click()
        ben.find_element(By.ID, "caption-input").send_keys("Cheers <b>from</b> Ben")
        ben.find_element(By.CSS_SELECTOR, "#caption-dialog button[value='save']").click()
        wait(ben, lambda d: d.find_element(By.ID, "viewer-text").text == "Cheers <b>from</b> Ben", "Ben's caption under his photo")
        wait(ana, lambda d: d.find_element(By.ID, "viewer-text").text == "Cheers <b>from</b> Ben", "the caption, live, in Ana's viewer")
        assert not ana.find_elements(By.CSS_SELECTOR, "#viewer-text b")  # shown as text, never as markup
        shot(ana, "guest-caption")
        ana.find_element(By.ID, "viewer-close").click()
        check("a guest captions his photo and another sees the caption live, as text")

        # A large file goes with tus; offline halfway, a reload, back online: it goes on where it stopped.
        big_event = create_event(organizer, server, "Large files", 5)
        big_url = decode_qr(organizer)
        join(ben, big_url, "Ben")
        big = os.path.join(downloads, "PANO_0001.jpg")
        subprocess.run(["vips", "gaussnoise", big + "[Q=90]", "5000", "3500"], check=True)
        assert os.path.getsize(big) > 6 * 1024 * 1024
        # Slowed to 2 MB/s, so that "halfway" lasts long enough to be caught.
        ben.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 2_000_000})
        ben.find_element(By.ID, "file-input").send_keys(big)
        partials = os.path.join(server.data, "resumable-uploads")
        def partial_size(d):
            # The upload's bytes, not the first look kept beside them.
            names = [n for n in os.listdir(partials) if not n.endswith(".first-look")] if os.path.isdir(partials) else []
            sizes = [os.path.getsize(os.path.join(partials, n)) for n in names]
            return (names[0], sizes[0]) if sizes and sizes[0] >= 2 * 1024 * 1024 else None
        upload_id, halfway = wait(ben, partial_size, "two megabytes on the server")
        ben.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            ben.refresh()  # offline: the browser's own error page
        except Exception:
            pass
        time.sleep(1)
        assert os.path.getsize(os.path.join(partials, upload_id)) < os.path.getsize(big), "cut off halfway"
        ben.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        ben.get(big_url.split("?")[0] + "/camera")
        wait(ben, queue_empty, "the large file sent after coming back", timeout=90)
        sent = wait_for_photos(server, organizer_cookie, big_event, 1, "Ben")[0]
        assert sent["sha256"] == hashlib.sha256(open(big, "rb").read()).hexdigest()
        # The upload that went on is the one begun before the cut (a new one would have ended it: 404).
        head = urllib.request.Request(f"{server.base}/api/v1/uploads/{upload_id}", method="HEAD",
                                      headers={"Cookie": f"disposable_session={session_cookie(ben)}", "Tus-Resumable": "1.0.0"})
        assert urllib.request.urlopen(head, timeout=30).headers.get("X-Photo-ID") == sent["id"]
        check("a large file cut off halfway (offline, reload) goes on from the server's bytes when back online")
        guestbook_checks(organizer, server, ben, check, drivers)
        recap_checks(organizer, server, ben, check, drivers)

        # The counter goes down and the shutter blocks at zero.
        ana.get(url + "/camera")
        wait(ana, lambda d: d.find_element(By.ID, "shutter").is_enabled(), "Ana's camera again")
        assert shots_left(ana) == 2
        shoot(ana)
        shoot(ana)
        # The fake camera's picture repeats: a shot that happens to repeat an earlier picture is the same photo
        # (409, the shot given back). Shoot again until the film is used up, a few times at most.
        for _ in range(4):
            wait(ana, queue_empty, "Ana's shots sent")
            if shots_left(ana) == 0:
                break
            shoot(ana)
        assert shots_left(ana) == 0
        wait(ana, lambda d: not d.find_element(By.ID, "shutter").is_enabled(), "shutter disabled at 0")
        assert "No shots left" in ana.find_element(By.ID, "shots-text").text
        # The messages, the shutter and the library button do not cover each other.
        overlaps = ana.execute_script("""
            const box = (e) => e && !e.hidden && e.offsetParent ? e.getBoundingClientRect() : null;
            const hit = (a, b) => a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
            const shutter = box(document.getElementById('shutter')), text = box(document.getElementById('shots-text'));
            const message = box(document.getElementById('camera-message')), notice = box(document.querySelector('.viewfinder .notice'));
            const library = box(document.querySelector('.fallback .button')), tabs = box(document.querySelector('.tabs'));
            return [hit(shutter, text) && 'counter on shutter', hit(shutter, message) && 'message on shutter',
                    hit(message, notice) && 'message on notice', library && tabs && library.bottom > tabs.top && 'library button under the tabs'].filter(Boolean);""")
        assert not overlaps, overlaps
        assert not ana.find_element(By.CSS_SELECTOR, ".fallback").is_displayed(), "at 0 shots, no library button"
        wait(ana, queue_empty, "Ana's last photos sent")
        shot(ana, "guest-camera-empty")
        ana.refresh()
        wait(ana, lambda d: d.find_element(By.ID, "shots-left").get_attribute("data-shots") == "0", "0 shots after reload")
        time.sleep(1)
        assert not ana.find_element(By.ID, "shutter").is_enabled()
        check("the counter decrements and the shutter blocks at 0")

        # A guest deletes one of her photos, after confirming.
        ana.get(url + "/mine")
        wait(ana, lambda d: len(gallery_ids(d)) == 3, "Ana's 3 shots in My shots")
        shot(ana, "guest-my-shots")
        victim = sorted(gallery_ids(ana))[0]
        open_tile(ana, victim)
        wait(ana, lambda d: d.find_element(By.ID, "viewer").is_displayed(), "viewer open")
        shot(ana, "guest-viewer")
        viewer_checks(ana, tile_of(victim), check)
        open_tile(ana, victim)
        wait(ana, lambda d: d.find_element(By.ID, "viewer").is_displayed(), "viewer open again")
        ana.find_element(By.ID, "viewer-delete").click()
        wait(ana, lambda d: d.find_element(By.ID, "confirm-delete").is_displayed(), "confirmation asked")
        ana.find_element(By.ID, "confirm-delete-button").click()
        wait(ana, lambda d: victim not in gallery_ids(d), "deleted photo gone from My shots")
        remaining = wait_for_photos(server, organizer_cookie, event_id, 4)
        assert victim not in {p["id"] for p in remaining}
        check("a guest deletes a photo after confirming")

        selection_checks(organizer, url, check)
        # The organizer downloads everything: the ZIP holds every photo, byte for byte.
        organizer.get(server.base + f"/events/{event_id}")
        wait(organizer, lambda d: "4 photos" in d.find_element(By.ID, "stats").text, "stats show 4 photos")
        # ORG-2: uploads over time, drawn as bars that add up to the photos.
        bars = organizer.find_elements(By.CSS_SELECTOR, "#stats .uploads-chart rect")
        assert sum(int(bar.get_attribute("data-photos")) for bar in bars) == 4, "the chart's bars do not add up to the photos"
        organizer.execute_script("document.getElementById('stats').scrollIntoView()")
        # Moderation thumbnails say who shot them and open larger.
        wait(organizer, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moderation-grid li")) == 4, "4 thumbnails to moderate")
        names = {e.text for e in organizer.find_elements(By.CSS_SELECTOR, "#moderation-grid .shooter")}
        links = organizer.find_elements(By.CSS_SELECTOR, "#moderation-grid li a[href*='preview']")
        assert names == {"Ana", "Ben"} and len(links) == 4, (names, len(links))
        shot(organizer, "organizer-event-with-photos")
        for name in os.listdir(downloads):
            os.remove(os.path.join(downloads, name))
        organizer.find_element(By.CSS_SELECTOR, "#overview a[href$='archive.zip']").click()
        wait(organizer, lambda d: any(n.endswith(".zip") for n in os.listdir(downloads)), "ZIP downloaded", timeout=60)
        archive = [n for n in os.listdir(downloads) if n.endswith(".zip")][0]
        with zipfile.ZipFile(os.path.join(downloads, archive)) as z:
            assert z.testzip() is None
            hashes = sorted(hashlib.sha256(z.read(name)).hexdigest() for name in z.namelist() if name != "guestbook.txt")
            guestbook = z.read("guestbook.txt").decode()
        assert hashes == sorted(p["sha256"] for p in remaining), "ZIP entries differ from the event's photos"
        # The words come too — notes and captions in guestbook.txt.
        assert "(Ben): Cheers <b>from</b> Ben" in guestbook, guestbook
        check("the organizer downloads the ZIP: every photo (SHA-256), and the notes and captions in guestbook.txt")

        # SUP-4: a guest's "My data" export holds data.json and exactly her photos, byte for byte.
        for name in os.listdir(downloads):
            os.remove(os.path.join(downloads, name))
        ana.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        ana.get(server.base + "/my-data")
        ana.find_element(By.ID, "export").click()
        wait(ana, lambda d: "my-data.zip" in os.listdir(downloads), "my data downloaded", timeout=60)
        with zipfile.ZipFile(os.path.join(downloads, "my-data.zip")) as z:
            assert z.testzip() is None
            data = json.loads(z.read("data.json"))
            mine = sorted(hashlib.sha256(z.read(name)).hexdigest() for name in z.namelist() if name.startswith("photos/"))
        assert data["kind"] == "guest" and data["guest"]["name"] == "Ana", data
        assert mine == sorted(p["sha256"] for p in remaining if p["shooter"]["name"] == "Ana") and mine, "the export is not Ana's photos"
        check("a guest's 'My data' export holds data.json and her photos (SHA-256)")

        # GAL-5: the venue wall, on a big screen nobody signs in on.
        organizer.get(f"{server.base}/events/{event_id}#wall")
        organizer.find_element(By.CSS_SELECTOR, "#wall form button[type=submit]").click()
        wall_url = wait(organizer, lambda d: next(iter(d.find_elements(By.ID, "wall-link")), None), "the wall link made").get_attribute("value")
        shot(organizer, "organizer-wall-link")
        screen = browser(); drivers.append(screen)
        screen.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False})
        screen.get(wall_url)
        current_slide = "return document.querySelector('.slide.current')?.dataset.id"
        first = wait(screen, lambda d: d.execute_script(current_slide), "a photo on the wall")
        assert screen.get_cookie("disposable_session") is None
        # One photo at a time, as large as the screen allows.
        covered = screen.execute_script("""
            const image = document.querySelector('.slide.current img');
            const scale = Math.min(innerWidth / image.naturalWidth, innerHeight / image.naturalHeight);
            return Math.max(image.naturalWidth * scale / innerWidth, image.naturalHeight * scale / innerHeight);""")
        assert covered > 0.95, f"the photo fills {covered:.0%} of the screen"
        # textContent, not .text: during the cross-fade the slide is still transparent, and selenium reads no text there.
        caption_text = "return document.querySelector('.slide.current figcaption').textContent"
        assert screen.execute_script(caption_text) in {"Ana", "Ben"}
        # The corner's QR code scans to the join link.
        corner = os.path.join(ARTIFACTS, "wall-qr.png")
        screen.find_element(By.CSS_SELECTOR, ".wall-qr").screenshot(corner)
        assert subprocess.run(["zbarimg", "--raw", "-q", corner], capture_output=True, text=True).stdout.strip() == qr_url
        assert code in screen.find_element(By.CSS_SELECTOR, ".wall-corner").text
        time.sleep(1.5)  # the cross-fade
        shot(screen, "wall")
        # A photo just taken goes next, with its shooter's name.
        fresh = organizer.execute_script("""return (async (event) => {
            const canvas = Object.assign(document.createElement('canvas'), { width: 1600, height: 1000 });
            const context = canvas.getContext('2d');
            context.fillStyle = '#2a6f97'; context.fillRect(0, 0, 1600, 1000);
            context.fillStyle = '#fff'; context.font = '120px sans-serif'; context.fillText('On the wall ' + Date.now(), 80, 520);
            const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
            const response = await fetch(`/api/v1/events/${event}/photos`,
              { method: 'POST', body: blob, headers: { 'Content-Type': 'image/jpeg', 'X-Photo-Source': 'camera' } });
            return (await response.json()).id; })(arguments[0]);""", event_id)
        wait(screen, lambda d: d.execute_script(current_slide) == fresh, "the new photo on the wall next")
        caption = screen.execute_script(caption_text)
        assert caption.startswith("Emma") and "New" in caption, caption
        time.sleep(1.5)
        shot(screen, "wall-new-photo")
        # Space pauses (and says so), the arrow goes on by hand, Space again plays.
        screen.find_element(By.TAG_NAME, "body").send_keys(" ")
        wait(screen, lambda d: d.find_element(By.ID, "wall-paused").is_displayed(), "paused")
        screen.find_element(By.TAG_NAME, "body").send_keys("\ue014")  # the right arrow
        wait(screen, lambda d: d.execute_script(current_slide) not in (fresh, None), "the next photo by hand")
        time.sleep(9)  # longer than a photo's time on screen: paused, it stays
        assert screen.find_element(By.ID, "wall-paused").is_displayed()
        screen.find_element(By.TAG_NAME, "body").send_keys(" ")
        wait(screen, lambda d: not d.find_element(By.ID, "wall-paused").is_displayed(), "playing again")
        # The cross-fade, unless the screen asks for less motion.
        fade = "return getComputedStyle(document.querySelector('.slide')).transitionDuration"
        assert screen.execute_script(fade) != "0s"
        screen.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        assert screen.execute_script(fade) == "0s"
        screen.find_element(By.ID, "wall-fullscreen").click()
        wait(screen, lambda d: d.execute_script("return document.fullscreenElement !== null"), "full screen")
        # The organizer turns the link off: the screen says so within seconds.
        organizer.get(f"{server.base}/events/{event_id}#wall")
        organizer.find_element(By.CSS_SELECTOR, "#wall form[action$='/wall/off'] button").click()
        confirm_in_app(organizer)
        wait(organizer, lambda d: not d.find_elements(By.ID, "wall-link"), "the wall link turned off")
        wait(screen, lambda d: d.find_element(By.ID, "wall-gone").is_displayed(), "the wall says its link is off")
        screen.get(wall_url)
        assert "does not work" in screen.page_source
        check("the venue wall: full screen, one photo at a time, new ones first, QR in a corner, keys, link turned off")

        organizer.get(server.base + f"/events/{event_id}/card")
        shot(organizer, "organizer-table-card")
        organizer.get(server.base + "/events")
        # My events shows the newest photos of each event (the guests' two), loaded, one tap away.
        strip = organizer.find_element(By.CSS_SELECTOR, f".event-strip[href='/e/{code}']")
        organizer.execute_script("arguments[0].scrollIntoView({block: 'center'})", strip)
        wait(organizer, lambda d: d.execute_script(
            "const images = [...arguments[0].querySelectorAll('img')];"
            "return images.length > 0 && images.every(i => i.complete && i.naturalWidth > 0)",
            strip), "the event's thumbnails on My events")
        right = organizer.execute_script("return arguments[0].getBoundingClientRect().right <= innerWidth", strip)
        assert right and strip.get_attribute("aria-label") == "See the photos of Leo's baptism", strip.get_attribute("aria-label")
        shot(organizer, "organizer-dashboard")
        french_dark(organizer, server, "/events", "organizer-dashboard-fr-dark")
        organizer.get(f"{server.base}/events/{event_id}")
        assert not organizer.find_elements(By.ID, "first-event-guide")
        check("My events shows each event's newest photos; the first-event guide is gone once photos arrive")

        # A reveal-later event: guests see "developing" with a count and a countdown.
        later_id = create_event(organizer, server, "Emily's party", shots=5, reveal="at-end")
        later_url = decode_qr(organizer)
        cleo = browser(); drivers.append(cleo)
        dan = browser(); drivers.append(dan)
        join(cleo, later_url, "Cleo")
        shoot(cleo)
        wait(cleo, queue_empty, "Cleo's photo sent")
        join(dan, later_url, "Dan")
        dan.get(later_url)
        wait(dan, lambda d: d.find_element(By.ID, "developing").is_displayed(), "developing state")
        wait(dan, lambda d: "1 photo" in d.find_element(By.ID, "developing-count").text, "developing count")
        countdown = dan.find_element(By.ID, "countdown").text
        assert countdown.startswith("Revealed in ") and ("d" in countdown), countdown
        assert len(gallery_ids(dan)) == 0
        shot(dan, "guest-developing")
        check("a reveal-later event shows developing, the count and the countdown")

        # ORG-3: the organizer removes a guest from the event page; the guest is signed out at once.
        organizer.get(f"{server.base}/events/{later_id}#guests")
        guests = {e.find_element(By.CSS_SELECTOR, ".guest-name").text: e for e in organizer.find_elements(By.CSS_SELECTOR, "#guests .guest-list li")}
        assert set(guests) == {"Cleo", "Dan"}, set(guests)
        guests["Dan"].find_element(By.TAG_NAME, "summary").click()
        shot(organizer, "organizer-guests")
        guests["Dan"].find_element(By.CSS_SELECTOR, "button.danger").click()
        confirm_in_app(organizer)
        wait(organizer, lambda d: "removed=1" in d.current_url, "the guest removed")
        names = [e.text for e in organizer.find_elements(By.CSS_SELECTOR, "#guests .guest-list .guest-name")]
        assert names == ["Cleo"], names
        dan.get(later_url.split("?")[0])
        wait(dan, lambda d: d.find_elements(By.ID, "join-form"), "the removed guest is back at the join form")
        check("the organizer removes a guest from the event page, and the guest is signed out")

        # SOC-5: the organizer's picture, set on her account page, shows beside her photo in a
        # guest's gallery (loaded with the guest's session) and in the admin's list of accounts (below).
        face_file = os.path.join(downloads, "face.jpg")
        subprocess.run(["vips", "black", face_file + "[Q=90]", "600", "600", "--bands", "3"], check=True)
        organizer.get(server.base + "/account")
        organizer.find_element(By.ID, "avatar-file").send_keys(face_file)
        face_url = wait(organizer, lambda d: next((e.get_attribute("src") for e in d.find_elements(By.ID, "avatar")), None), "the picture on the account page")
        organizer.get(url)
        sent = organizer.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const canvas = document.createElement('canvas');
            canvas.width = 320; canvas.height = 240;
            const context = canvas.getContext('2d');
            context.fillStyle = '#c84'; context.fillRect(0, 0, 320, 240); context.fillStyle = '#fff'; context.fillRect(40, 40, 90, 60);
            canvas.toBlob(async (blob) => {
              const answer = await fetch(`/api/v1/events/${arguments[0]}/photos`, {method: 'POST', headers: {'Content-Type': 'image/jpeg'}, body: blob});
              done({status: answer.status, body: await answer.json()});
            }, 'image/jpeg', 0.9);""", event_id)
        assert sent["status"] == 201 and face_url.endswith(sent["body"]["shooter"]["avatarURL"]), sent
        ana.get(url)
        face_css = f"#grid li[data-id='{sent['body']['id']}'] .who img.face"
        wait(ana, lambda d: d.find_elements(By.CSS_SELECTOR, face_css), "the organizer's picture beside her photo")
        # Found again each time: the tile is drawn again when the server's render of the photo arrives.
        wait(ana, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", d.find_element(By.CSS_SELECTOR, face_css)) > 0,
             "the picture loads for a guest")
        face = wait(ana, lambda d: d.execute_script(
            "const face = document.querySelector(arguments[0]); return {src: face.src, who: face.parentElement.textContent}", face_css),
            "the picture's link and the shooter's name")
        assert "/avatar.jpg?v=" in face["src"] and "Emma" in face["who"], face
        shot(ana, "guest-gallery-faces")
        check("the organizer's picture shows beside her photo in a guest's gallery")

        # French from Accept-Language, and the switcher back to English.
        french = browser("fr-FR"); drivers.append(french)
        french.get(server.base + "/")
        assert french.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
        assert "Rejoindre un événement" in french.page_source
        french.get(url)
        assert "Votre prénom" in french.page_source
        shot(french, "guest-join-fr")
        french.find_element(By.CSS_SELECTOR, ".languages a[lang=en]").click()
        wait(french, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en", "switched to English")
        check("a browser asking for French gets French, and can switch")

        # A refusal reads as a short sentence in the guest's language, wholly visible.
        french.get(f"{server.base}/language/fr?back=/")
        join(french, qr_url, "Zoé")
        not_a_photo = os.path.join(downloads, "notes.txt")
        with open(not_a_photo, "w") as handle:
            handle.write("not a photo")
        french.find_element(By.ID, "file-input").send_keys(not_a_photo)
        toast = wait(french, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, ".toast") if "photo" in e.text), None), "the refusal shown")
        assert "Ce fichier n'est pas une photo" in toast.text, toast.text
        assert french.execute_script("const e = arguments[0]; const r = e.getBoundingClientRect();"
                                     "return e.scrollWidth <= e.clientWidth && r.left >= 0 && r.right <= innerWidth", toast), "toast clipped"
        shot(french, "guest-refusal-fr")
        check("a refused photo is explained in the guest's language, in full")

        # Times typed in the form are the organizer's local times, wherever the browser is.
        for zone, starts, reveals in [("Europe/Paris", "2026-12-24T18:25:00Z", "2026-12-24T21:00:00Z"),
                                      ("America/Los_Angeles", "2026-12-25T03:25:00Z", "2026-12-25T06:00:00Z")]:
            organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
            organizer.get(server.base + "/events/new")  # the page's script records the zone in a cookie
            organizer.get(server.base + "/events/new")
            organizer.find_element(By.ID, "f-name").send_keys(f"Christmas in {zone}")
            organizer.execute_script("document.getElementById('f-startsAt').value = '2026-12-24T19:25';"
                                     "document.getElementById('f-endsAt').value = '2026-12-25T02:00';"
                                     "document.querySelector('input[name=revealAt]').value = '2026-12-24T22:00';")
            organizer.find_element(By.CSS_SELECTOR, "input[name=revealMode][value='at']").click()
            organizer.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
            wait(organizer, lambda d: "created=1" in d.current_url, f"event created in {zone}")
            created = server.api("/api/v1/events/" + organizer.current_url.split("/events/")[1].split("?")[0], organizer_cookie)
            stored = (utc(created["startsAt"]), utc(created["reveal"]["at"]))
            assert stored == (utc(starts), utc(reveals)), f"{zone}: typed 19:25 and 22:00, stored {stored}"
        organizer.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
        check("form times are read in the organizer's time zone (Paris, Los Angeles)")

        # ADM-4: the admin panel — set up by the first-run wizard, then signed in.
        admin = browser(); drivers.append(admin)
        admin.get(server.base + "/setup")
        admin.find_element(By.ID, "code").send_keys(server.setup_code())
        admin.find_element(By.ID, "name").send_keys("Ines")
        admin.find_element(By.ID, "email").send_keys("ines@example.com")
        admin.find_element(By.ID, "password").send_keys("admin password")
        admin.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        # The wizard's answer must have arrived: a navigation started before it ends would be replaced by it.
        wait(admin, lambda d: not d.find_elements(By.ID, "password"), "the first-run wizard done")
        admin.get(server.base + "/login?next=/admin")
        admin.find_element(By.ID, "email").send_keys("ines@example.com")
        admin.find_element(By.ID, "password").send_keys("admin password")
        admin.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(admin, lambda d: d.current_url.endswith("/admin"), "the admin panel after signing in")
        emma = wait(admin, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, ".account") if e.get_attribute("data-email").startswith("emma-")), None),
                    "Emma in the accounts")
        assert " used" in emma.find_element(By.CSS_SELECTOR, ".used").text, emma.text
        assert "/avatar.jpg?v=" in emma.find_element(By.CSS_SELECTOR, ".account-head img.face").get_attribute("src"), "her picture in the list"
        # A quota change the organizer sees: 1 KB, so her dashboard says it is full and warns her.
        quota = emma.find_element(By.CSS_SELECTOR, "input[name=quotaGB]")
        quota.send_keys("0.000001")
        click_and_load(admin, emma.find_element(By.CSS_SELECTOR, ".quota-form button[type=submit]"), "done=quota", "the quota saved")
        organizer.get(server.base + "/events")
        storage = organizer.find_element(By.ID, "storage").text
        assert "of 1 KB used" in storage and "almost full" in storage, storage
        check("the admin sets an organizer's quota from the panel; her dashboard shows it and warns her")
        # Over quota, photos added to the library wait; the banner offers to cancel them, and cancelling empties it.
        organizer.get(server.base + "/library")
        full = [os.path.join(downloads, f"IMG_FULL_{n}.jpg") for n in range(2)]
        for n, path in enumerate(full):
            subprocess.run(["vips", "gaussnoise", path + "[Q=85]", str(300 + n), "200"], check=True)
        organizer.find_element(By.ID, "library-files").send_keys("\n".join(full))
        cancel = wait(organizer, lambda d: next((e for e in d.find_elements(By.ID, "library-cancel") if e.is_displayed()), None), "Cancel on the held uploads")
        cancel.click()
        wait(organizer, lambda d: not d.find_element(By.ID, "library-status").is_displayed(), "the banner gone with the uploads")
        assert organizer.execute_script("return new Promise((done) => { const r = indexedDB.open('disposable'); "
                                        "r.onsuccess = () => { const s = r.result.transaction('uploads').objectStore('uploads').getAll(); "
                                        "s.onsuccess = () => done(s.result.filter((i) => i.eventId === 'library').length); }; })") == 0
        check("over quota, the library's waiting uploads can be cancelled from the banner")
        emma = next(e for e in admin.find_elements(By.CSS_SELECTOR, ".account") if e.get_attribute("data-email").startswith("emma-"))
        emma.find_element(By.CSS_SELECTOR, "input[name=quotaGB]").clear()
        click_and_load(admin, emma.find_element(By.CSS_SELECTOR, ".quota-form button[type=submit]"), "done=quota", "the quota back to the default")
        # The registration switch: off, a visitor's register page says so; on again.
        click_and_load(admin, admin.find_element(By.ID, "registration-toggle"), "done=settings", "registration turned off")
        cleo.get(server.base + "/register")
        assert "Account registration is disabled" in cleo.find_element(By.TAG_NAME, "main").text, cleo.find_element(By.TAG_NAME, "main").text
        click_and_load(admin, admin.find_element(By.ID, "registration-toggle"), "done=settings", "registration turned on")
        cleo.get(server.base + "/register")
        assert cleo.find_elements(By.ID, "password"), "the register form is back"
        check("the admin turns registration off and on; the register page follows")
        # Delete an account with the double confirmation: the button, then Cancel (left) / Continue (right).
        admin.find_element(By.ID, "new-email").send_keys("zoe@example.com")
        admin.find_element(By.ID, "new-name").send_keys("Zoe")
        admin.find_element(By.ID, "new-password").send_keys("zoe password")
        click_and_load(admin, admin.find_element(By.CSS_SELECTOR, "#add-user button[type=submit]"), "done=added", "Zoe added")
        zoe = admin.find_element(By.CSS_SELECTOR, ".account[data-email='zoe@example.com']")
        zoe.find_element(By.CSS_SELECTOR, "form[data-delete-account] button").click()
        dialog = wait(admin, lambda d: next((e for e in d.find_elements(By.ID, "delete-dialog") if e.is_displayed()), None), "the dialog")
        assert "All media files for this user will be deleted." in dialog.text, dialog.text
        cancel, proceed = admin.find_element(By.ID, "delete-cancel"), admin.find_element(By.ID, "delete-continue")
        assert cancel.text == "Cancel" and proceed.text == "Continue", (cancel.text, proceed.text)
        assert cancel.rect["x"] < proceed.rect["x"], "Cancel on the left, Continue on the right"
        shot(admin, "pages/en-light-admin-delete-dialog")
        cancel.click()
        time.sleep(0.5)
        assert admin.find_elements(By.CSS_SELECTOR, ".account[data-email='zoe@example.com']"), "Cancel deletes nothing"
        admin.find_element(By.CSS_SELECTOR, ".account[data-email='zoe@example.com'] form[data-delete-account] button").click()
        wait(admin, lambda d: d.find_element(By.ID, "delete-dialog").is_displayed(), "the dialog again")
        click_and_load(admin, admin.find_element(By.ID, "delete-continue"), "done=deleted", "Zoe deleted")
        assert not admin.find_elements(By.CSS_SELECTOR, ".account[data-email='zoe@example.com']")
        check("deleting an account asks twice (Cancel left, Continue right) and only Continue deletes")
        # Crash reports: an error a page meets in a browser reaches the admin's panel, with the page it happened on.
        admin.get(server.base + "/help")
        # The error event as the browser fires it for a failing script (one thrown by a script the test injects is
        # muted, as a cross-origin script's is, and never reaches the page's listeners).
        admin.execute_script("window.dispatchEvent(new ErrorEvent('error', {message: 'web test: a page failed on purpose', error: new Error('x')}))")
        def reported(d):
            d.get(server.base + "/admin")
            return "a page failed on purpose" in d.find_element(By.ID, "client-errors").text
        wait(admin, reported, "the browser's error on the admin's panel")
        assert "/help" in admin.find_element(By.ID, "client-errors").text
        admin.get_log("browser")  # the error thrown on purpose is not one of the page's own
        check("an error a page meets in a browser reaches the admin's panel with its page (crash reports)")
        for language in ["en", "fr"]:
            admin.get(f"{server.base}/language/{language}?back=/admin")
            admin.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
            admin.get(server.base + "/admin")
            shot(admin, f"pages/{language}-light-admin-desktop")
            admin.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 412, "height": 915, "deviceScaleFactor": 2, "mobile": True})
        admin.get(f"{server.base}/language/en?back=/admin")

        # ADM-3: "Forgot password?" through the real SMTP server; the mailed link works once.
        admin.find_element(By.ID, "new-email").send_keys("yara@example.com")
        admin.find_element(By.ID, "new-password").send_keys("first password")
        click_and_load(admin, admin.find_element(By.CSS_SELECTOR, "#add-user button[type=submit]"), "done=added", "Yara added")
        cleo.get(server.base + "/login")
        click_and_load(cleo, cleo.find_element(By.ID, "forgot-link"), "/forgot", "the forgot page")
        cleo.find_element(By.ID, "email").send_keys("yara@example.com")
        cleo.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(cleo, lambda d: d.find_elements(By.ID, "forgot-sent"), "the 'link on its way' notice")
        message = wait(cleo, lambda d: next((m for m in mail.messages() if "yara@example.com" in m), None), "the mail in the SMTP server")
        body = mail_body(message)
        link = next(line for line in body.splitlines() if line.startswith(server.base + "/reset/"))
        cleo.get(link)
        cleo.find_element(By.ID, "password").send_keys("second password")
        cleo.find_element(By.ID, "confirmation").send_keys("second password")
        click_and_load(cleo, cleo.find_element(By.CSS_SELECTOR, "main form button[type=submit]"), "reset=1", "back to signing in")
        assert "password was changed" in cleo.find_element(By.CSS_SELECTOR, ".notice").text
        cleo.find_element(By.ID, "email").send_keys("yara@example.com")
        cleo.find_element(By.ID, "password").send_keys("second password")
        click_and_load(cleo, cleo.find_element(By.CSS_SELECTOR, "main form button[type=submit]"), "/events", "Yara signed in")
        cleo.get(link)
        assert "expired" in cleo.find_element(By.TAG_NAME, "h1").text, "the link works once"
        cleo.find_element(By.CSS_SELECTOR, ".menu-button").click()
        click_and_load(cleo, cleo.find_element(By.CSS_SELECTOR, "form[action='/logout'] button"), "/", "Yara signed out")
        check("forgot password: the mail arrives through SMTP, its link sets a new password once")

        header_checks(organizer, server, check)
        contrast_checks(organizer, ana, url, server, check)
        locked_settings_check(organizer, server, event_id, check)
        leaving_checks(organizer, server, check, drivers)

        # No page is wider than a phone, at 360 and 390 px, in English and French; and a
        # screenshot of each at 390 px, light and dark, in both languages (look at them: .build/web-artifacts/pages).
        pages = {
            "organizer": (organizer, ["/", "/events", "/account", "/account/devices", "/events/new", f"/events/{event_id}", f"/events/{later_id}", "/moments", "/help",
                                      "/terms", "/privacy", "/library", "/capsules", "/friends"]),
            "guest": (ana, [url + "/camera", url, url + "/mine", url + "/recap", url + "/continue", "/my-data"]),
            "visitor": (cleo, ["/login", "/forgot", "/register", "/support", url, later_url.split("?")[0], "/e/ZZZZ-ZZZZ", "/no-such-page"]),
            "admin": (admin, ["/admin"]),
        }
        too_wide, inaccessible, untranslated = [], [], []
        english = phone.english_only(phone.load_catalogues())
        for language in ["en", "fr"]:
            for role, (driver, paths) in pages.items():
                driver.get(f"{server.base}/language/{language}?back=/help")
                for width in [360, 390]:
                    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 800, "deviceScaleFactor": 2, "mobile": True})
                    for path in paths:
                        driver.get(path if path.startswith("http") else server.base + path)
                        # Compared with the phone's width: a mobile browser zooms out to fit a page that is too wide,
                        # so innerWidth grows with it.
                        widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
                        if max(widths) > width:
                            culprits = driver.execute_script(
                                "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > arguments[0] + 1)"
                                ".slice(0, 4).map(e => e.tagName + '.' + e.className + '#' + e.id)", width)
                            too_wide.append((language, width, path, widths, culprits))
                            shot(driver, f"too-wide-{language}-{width}-{len(too_wide)}")
                        if width == 390:
                            place = path.replace(url, "/event").replace(later_url.split("?")[0], "/developing").replace(server.base, "")
                            name = role + "-" + (re.sub(r"[^a-z0-9]+", "-", place.lower()).strip("-") or "home")
                            for scheme in ["light", "dark"]:
                                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                                shot(driver, f"pages/{language}-{scheme}-{name}")
                                # Axe-core on every page, light and dark, en and fr; and with the high-contrast
                                # switch on, the enhanced (7:1) contrast.
                                inaccessible += [(language, scheme, role, place, finding) for finding in phone.axe_findings(driver)]
                                driver.execute_script("document.documentElement.dataset.contrast = 'more'")
                                inaccessible += [(language, scheme + " high contrast", role, place, finding)
                                                 for finding in phone.axe_findings(driver, ["color-contrast-enhanced"])]
                                driver.execute_script("delete document.documentElement.dataset.contrast")
                            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
                            if language == "fr":
                                untranslated += [(role, place, words) for words in phone.english_left(driver, english)]
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 412, "height": 915, "deviceScaleFactor": 2, "mobile": True})
                driver.get(f"{server.base}/language/en?back=/help")
        assert not too_wide, too_wide
        check("no page is wider than the phone at 360 and 390 px, in English and French")
        assert not inaccessible, "\n".join(map(str, inaccessible))
        check(f"axe-core {phone.axe_version()}: no serious or critical finding on {sum(len(p) for _, p in pages.values())} pages × en, fr × light, dark;"
              " and the enhanced contrast with the high-contrast switch on")
        assert not untranslated, untranslated
        check("no English sentence of the catalogue on a French page")

        # The guest camera page's own JS + CSS stays under 100 KB.
        sizes = {}
        for name in ["app.js", "queue.js", "camera.js", "app.css"]:
            with urllib.request.urlopen(f"{server.base}/static/{name}") as response:
                sizes[name] = len(response.read())
        assert sum(sizes.values()) < 100_000, sizes
        check(f"camera page JS + CSS is {sum(sizes.values())} bytes (< 100 KB)")

        for driver in drivers:
            errors = page_errors(driver)
            assert not errors, f"browser console errors: {errors}"
        check("no script errors or CSP violations in any browser")
    except Exception:
        for index, driver in enumerate(drivers):
            try:
                shot(driver, f"failure-{index}")
                print(f"--- browser {index} at {driver.current_url}: {[e['message'] for e in driver.get_log('browser')]}")
            except Exception:
                pass
        print("--- server log (tail):")
        server.log.flush()
        print("".join(open(os.path.join(server.data, "server.log")).readlines()[-40:]))
        # The failure last, after the check it followed: CI's summary shows a run's last lines.
        print(f"--- failed after: {checks[-1] if checks else 'no check passed'}")
        traceback.print_exc(file=sys.stdout)
        sys.exit(1)
    finally:
        for driver in drivers:
            driver.quit()
        server.stop()
        mail.stop()
        shutil.rmtree(server.data, ignore_errors=True)
        shutil.rmtree(downloads, ignore_errors=True)
    print(f"web: {len(checks)} checks passed; screenshots in {ARTIFACTS}")


if __name__ == "__main__":
    main()
