// The event's recap — its best photos as a slideshow, and the collage to keep or share.
import { t, api, formatDateTime, nameWithFace, photoAlt } from './app.js';

const root = document.getElementById('recap');
const note = document.getElementById('recap-note');
const slideshow = document.getElementById('slideshow');
const slide = document.getElementById('slide');
const position = document.getElementById('slide-position');
const play = document.getElementById('slide-play');
let photos = [];
let index = 0;
let timer = null;

function say(text) {
  note.textContent = text;
  note.hidden = false;
}

function show(at) {
  index = (at + photos.length) % photos.length;
  const photo = photos[index];
  slide.src = photo.urls.preview;
  slide.alt = photoAlt(photo);
  nameWithFace(document.getElementById('slide-shooter'), photo, photo.shooter.name);
  position.textContent = `${index + 1} / ${photos.length}`;
}

function playing(on) {
  clearInterval(timer);
  timer = on ? setInterval(() => show(index + 1), 4000) : null;
  play.setAttribute('aria-pressed', String(on));
  play.textContent = on ? t('recap_pause') : t('recap_play');
}

async function shareCollage(url, name) {
  try {
    const blob = await (await fetch(url, { credentials: 'same-origin' })).blob();
    const file = new File([blob], `${name}.jpg`, { type: 'image/jpeg' });
    if (navigator.canShare?.({ files: [file] })) await navigator.share({ files: [file], title: name });
    else await navigator.share({ title: name, url: location.href });
  } catch { /* the reader closed the share sheet */ }
}

async function start() {
  let recap;
  try {
    recap = await api(`/api/v1/events/${encodeURIComponent(root.dataset.event)}/recap`);
  } catch (error) {
    say(error.message);
    return;
  }
  if (recap.status === 'waiting') return say(t('recap_waiting', { date: formatDateTime(recap.readyAt) }));
  if (recap.status === 'preview') say(t('recap_preview', { date: formatDateTime(recap.readyAt) }));
  photos = recap.photos;
  if (!photos.length) return say(t('recap_empty'));
  slideshow.hidden = false;
  show(0);
  playing(!matchMedia('(prefers-reduced-motion: reduce)').matches);
  document.getElementById('slide-next').addEventListener('click', () => { playing(false); show(index + 1); });
  document.getElementById('slide-prev').addEventListener('click', () => { playing(false); show(index - 1); });
  play.addEventListener('click', () => playing(timer === null));
  slide.addEventListener('click', () => { playing(false); show(index + 1); });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowRight') { playing(false); show(index + 1); }
    if (event.key === 'ArrowLeft') { playing(false); show(index - 1); }
  });

  const name = `${root.dataset.name} — ${t('recap_file')}`;
  const collage = document.getElementById('collage');
  collage.src = recap.collageURL;
  const download = document.getElementById('collage-download');
  download.href = recap.collageURL;
  download.download = `${name}.jpg`;
  const share = document.getElementById('collage-share');
  share.hidden = !navigator.share;
  share.addEventListener('click', () => shareCollage(recap.collageURL, name));
  document.getElementById('collage-box').hidden = false;
}

start();
