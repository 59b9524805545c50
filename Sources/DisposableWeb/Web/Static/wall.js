// The venue wall. One photo at a time, as large as the screen; a photo just taken goes next, then
// the slideshow goes on through the newest ones. Space pauses, the arrows skip, F goes full screen.
import { t, formatTime, photoAlt } from './app.js';

const config = JSON.parse(document.getElementById('wall-config').textContent);
const base = `/api/v1/walls/${config.key}`;
const slides = [document.getElementById('slide-a'), document.getElementById('slide-b')];
const empty = document.getElementById('wall-empty');
const developing = document.getElementById('wall-developing');
const pausedNote = document.getElementById('wall-paused');
const pauseButton = document.getElementById('wall-pause');
const dwell = 8000;        // ms each photo stays
const rotation = 100;      // the newest photos the slideshow goes through

let photos = [];           // newest first
let fresh = [];            // arrived since, shown next (oldest of them first)
let position = -1;         // index in `photos` of the photo on screen, when it is from the rotation
let current = null;
let front = 0;             // which slide is on screen
let paused = false;
let timer = null;
let lastSeq = 0;
let feed = null;

async function loadPhotos() {
  const response = await fetch(`${base}/photos?limit=${rotation}`, { headers: { Accept: 'application/json' } });
  if (response.status === 404) { gone(); return null; }
  if (!response.ok) throw new Error(`photos: ${response.status}`);
  const page = await response.json();
  // Notes are words for the phones' guestbook; the wall shows pictures.
  // A photo whose preview is still being made comes on screen with it: a thumbnail is too small here. The phone's first
  // look (640 px) will do until the server's preview exists.
  photos = page.items.filter((photo) => photo.status === 'ready' && photo.urls && (!photo.previewPending || photo.firstLook));
  position = current ? photos.findIndex((photo) => photo.id === current.id) : -1;
  developing.hidden = page.revealed;
  if (!page.revealed) {
    developing.textContent = t('wall_developing', { n: page.developingCount ?? 0, time: formatTime(config.revealsAt) });
  }
  return page.changeSeq;
}

/** Shows `photo` once its picture is loaded, cross-fading from the one on screen. */
async function show(photo, isFresh) {
  const picture = new Image();
  try {
    await new Promise((resolve, reject) => { picture.onload = resolve; picture.onerror = reject; picture.src = photo.urls.preview; });
  } catch {
    return false;  // deleted meanwhile, or a link past its time
  }
  await picture.decode().catch(() => {});  // a smoother swap where it works (Chrome may refuse it now and then)
  const slide = slides[1 - front];
  const image = slide.querySelector('img');
  image.src = picture.src;
  image.alt = photoAlt(photo);
  const caption = slide.querySelector('figcaption');
  caption.textContent = photo.shooter.name;
  if (isFresh) {
    const badge = document.createElement('span');
    badge.className = 'fresh';
    badge.textContent = t('wall_new');
    caption.append(badge);
  }
  slide.dataset.id = photo.id;
  slides[front].classList.remove('current');
  slide.classList.add('current');
  front = 1 - front;
  current = photo;
  empty.hidden = true;
  return true;
}

async function advance(step = 1) {
  clearTimeout(timer);
  let shown = false;
  for (let tries = 0; !shown && tries < 3; tries++) {
    if (step > 0 && fresh.length) {
      shown = await show(fresh[0], true);
      // Shown, or tried enough: the next goes. Otherwise it stays first, with the fresh links loaded below.
      if (shown || tries === 2) fresh.shift();
    } else if (photos.length) {
      position = (position + step + photos.length) % photos.length;
      shown = await show(photos[position], false);
    } else break;
    // Links are signed for hours: a wall left on overnight fetches fresh ones.
    if (!shown) {
      await loadPhotos().catch(() => {});
      fresh = fresh.map((waiting) => photos.find((photo) => photo.id === waiting.id) ?? waiting);
    }
  }
  if (!photos.length && !fresh.length) clear();
  schedule();
}

function schedule() {
  clearTimeout(timer);
  if (!paused) timer = setTimeout(advance, dwell);
}

function clear() {
  for (const slide of slides) slide.classList.remove('current');
  current = null;
  empty.hidden = false;
}

function arrived(photo) {
  if (photo.status !== 'ready' || (photo.previewPending && !photo.firstLook)) return;
  const known = photos.findIndex((shown) => shown.id === photo.id);
  if (known >= 0) {
    photos[known] = photo; // the server's preview in place of the phone's first look, from its next turn
    return;
  }
  photos.unshift(photo);
  if (position >= 0) position += 1;
  photos.length = Math.min(photos.length, rotation);
  fresh.push(photo);
  if (!current) advance();
}

function removed(id) {
  photos = photos.filter((photo, index) => {
    if (photo.id !== id) return true;
    if (index <= position) position -= 1;
    return false;
  });
  fresh = fresh.filter((photo) => photo.id !== id);
  if (current?.id === id) advance();
}

function gone() {
  feed?.close();
  clearTimeout(timer);
  document.getElementById('wall-gone').hidden = false;
}

function listen() {
  feed = new EventSource(`${base}/changes?lastEventId=${lastSeq}`);
  const track = (handler) => (message) => {
    if (message.lastEventId) lastSeq = Number(message.lastEventId);
    handler(JSON.parse(message.data));
  };
  feed.addEventListener('photo-ready', track((change) => { if (change.photo?.urls) arrived(change.photo); }));
  feed.addEventListener('photo-updated', track((change) => { if (change.photo?.urls) arrived(change.photo); }));
  feed.addEventListener('photo-removed', track((change) => removed(change.photo?.id || change.photoId)));
  feed.addEventListener('event-revealed', track(() => refresh()));
  feed.addEventListener('event-updated', track(() => refresh()));
  feed.addEventListener('event-deleted', track(() => gone()));
  // The browser reconnects by itself after a drop; a refusal (the link turned off) closes the stream.
  feed.onerror = async () => {
    if (feed.readyState !== EventSource.CLOSED) return;
    const seq = await loadPhotos().catch(() => undefined);
    if (seq !== null) setTimeout(listen, 5000);
  };
}

async function refresh() {
  const seq = await loadPhotos().catch(() => undefined);
  if (seq === null) return;
  if (!current) advance();
}

function togglePause() {
  paused = !paused;
  pausedNote.hidden = !paused;
  pauseButton.textContent = paused ? pauseButton.dataset.play : pauseButton.dataset.pause;
  schedule();
}

function toggleFullScreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.().catch(() => {});
}

document.addEventListener('keydown', (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const actions = {
    ' ': togglePause, k: togglePause, ArrowRight: () => advance(1), ArrowLeft: () => advance(-1), f: toggleFullScreen, F: toggleFullScreen,
  };
  const action = actions[event.key];
  if (!action || (event.key === ' ' && event.target.closest?.('button'))) return;  // a button's own Space clicks it
  event.preventDefault();
  action();
});
pauseButton.addEventListener('click', togglePause);
document.getElementById('wall-fullscreen').addEventListener('click', toggleFullScreen);

// The pointer and the buttons get out of the way while nobody moves the mouse.
let idle = null;
const wake = () => {
  document.body.classList.remove('idle');
  clearTimeout(idle);
  idle = setTimeout(() => document.body.classList.add('idle'), 3000);
};
addEventListener('mousemove', wake);
wake();

const seq = await loadPhotos();
if (seq !== null) {
  lastSeq = seq;
  listen();
  advance();
  setInterval(() => loadPhotos().catch(() => {}), 20 * 60 * 1000);
}
