// My own library — the timeline by month (or the trash), infinite scroll, the viewer, uploads through the
// durable queue (multi-select and drag-and-drop), and live changes from my other devices.
import { api, formatTaken, locale, pageViewer, t, timeZone, toast } from './app.js';
import { importInstagram } from './instagram.js';
import { UploadQueue } from './queue.js';

const timeline = document.getElementById('timeline');
const inTrash = timeline.dataset.trash === 'true';
const empty = document.getElementById('empty');
const more = document.getElementById('more');
const status = document.getElementById('library-status');
const config = JSON.parse(document.getElementById('library-config').textContent);
const assets = new Map();
let cursor = null;
let finished = false;
let loading = false;

// Capture times show, and fall into months, as the clock read where they were taken when the file said; other
// times are moments, shown in the reader's own time zone.
const monthParts = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: '2-digit', timeZone });
const monthOf = (asset) => {
  if (asset.takenAtLocal) return asset.takenAtLocal.slice(0, 7);
  const part = Object.fromEntries(monthParts.formatToParts(new Date(asset.takenAt)).map(({ type, value }) => [type, value]));
  return `${part.year}-${part.month}`;
};
// "May 2023" / "Mai 2023": a month's name in the reader's language (the key names a calendar month, read as UTC).
const monthName = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
function monthTitle(month) {
  const text = monthName.format(new Date(`${month}-01T00:00:00Z`));
  return text.charAt(0).toLocaleUpperCase(locale) + text.slice(1);
}

/** Where an asset sorts: newest capture first (the trash: latest deleted first), then by id, as the server pages. */
function sortKey(asset) { return [inTrash ? asset.trashedAt : asset.takenAt, asset.id]; }
function before(a, b) {
  const [ta, ia] = sortKey(a);
  const [tb, ib] = sortKey(b);
  return ta === tb ? ia > ib : ta > tb;
}

function section(month) {
  let found = timeline.querySelector(`section[data-month="${month}"]`);
  if (found) return found.querySelector('ul');
  found = document.createElement('section');
  found.className = 'month';
  found.dataset.month = month;
  const list = document.createElement('ul');
  list.className = 'grid';
  if (month === 'trash') {
    found.append(list);
  } else {
    const title = document.createElement('h2');
    title.textContent = monthTitle(month);
    found.append(title, list);
  }
  const next = [...timeline.querySelectorAll('section[data-month]')].find((other) => other.dataset.month < month);
  timeline.insertBefore(found, next ?? null);
  return list;
}

/** `0:07`, `12:30`: a video's length. */
function clock(seconds) {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

function tile(asset) {
  const item = document.createElement('li');
  item.dataset.id = asset.id;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'thumb';
  if (asset.status === 'ready') {
    const image = document.createElement('img');
    image.loading = 'lazy';
    image.alt = t(asset.mediaType === 'video' ? 'library_video_of' : 'library_photo_of', { date: formatTaken(asset, { dateStyle: 'long' }) });
    image.src = asset.urls.thumbnail;
    button.append(image);
    if (asset.mediaType === 'video') {
      const badge = document.createElement('span');
      badge.className = 'video-badge';
      badge.textContent = `▶ ${clock(asset.durationSeconds ?? 0)}`;
      button.append(badge);
    } else if (asset.urls.video) {
      const badge = document.createElement('span');
      badge.className = 'live-badge';
      badge.textContent = t('library_live');
      button.append(badge);
    }
  } else {
    const note = document.createElement('span');
    note.className = 'pending';
    note.textContent = t(asset.status === 'failed' ? 'library_cannot_show' : 'library_processing');
    button.append(note);
  }
  button.addEventListener('click', () => openViewer(asset.id));
  item.append(button);
  return item;
}

/** Puts an asset where it belongs (or replaces its tile); an asset that left this view goes. */
function place(asset) {
  remove(asset.id);
  if (Boolean(asset.trashedAt) !== inTrash) return;
  assets.set(asset.id, asset);
  const key = inTrash ? 'trash' : monthOf(asset);
  const list = section(key);
  const next = [...list.children].find((li) => before(asset, assets.get(li.dataset.id)));
  list.insertBefore(tile(asset), next ?? null);
  update();
}

function remove(id) {
  if (!assets.delete(id)) return;
  const item = timeline.querySelector(`li[data-id="${id}"]`);
  const list = item?.parentElement;
  item?.remove();
  if (list && list.children.length === 0) list.parentElement.remove();
  update();
}

function update() {
  empty.hidden = assets.size > 0 || !finished;
  const emptyButton = document.getElementById('empty-trash');
  if (emptyButton) emptyButton.hidden = assets.size === 0;
}

async function loadMore() {
  if (loading || finished) return;
  loading = true;
  try {
    const base = inTrash ? '/api/v1/library/trash' : '/api/v1/library/assets';
    const page = await api(`${base}?limit=60${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    // A page is appended in order: no tile of it sorts before what is shown already.
    for (const asset of page.items) place(asset);
    cursor = page.nextCursor ?? null;
    finished = !cursor;
    update();
  } catch (error) {
    toast(error.message, 4000);
  } finally {
    loading = false;
  }
  if (!finished && more.getBoundingClientRect().top < innerHeight * 2) loadMore();
}

new IntersectionObserver((entries) => { if (entries.some((entry) => entry.isIntersecting)) loadMore(); }, { rootMargin: '600px' })
  .observe(more);

// The viewer: the thumbnail at once, the preview when it has arrived; swipe and arrow keys; download; delete or restore.
const viewer = document.getElementById('viewer');
const viewerImage = document.getElementById('viewer-image');
const caption = document.getElementById('viewer-caption');
const words = document.getElementById('viewer-words');
let current = null;

function order() { return [...timeline.querySelectorAll('li[data-id]')].map((li) => li.dataset.id).filter((id) => assets.get(id)?.status === 'ready'); }

function openViewer(id) {
  const asset = assets.get(id);
  if (!asset || asset.status !== 'ready') return;
  current = id;
  viewerImage.src = asset.urls.thumbnail;
  viewerImage.alt = asset.fileName;
  const preview = new Image();
  preview.onload = () => { if (current === id) viewerImage.src = preview.src; };
  preview.src = asset.urls.preview;
  caption.textContent = `${formatTaken(asset, { dateStyle: 'long', timeStyle: 'short' })} · ${asset.fileName}`;
  // The words it came with (an Instagram post's caption), as written: text only, line breaks kept.
  words.textContent = asset.caption || '';
  words.hidden = !asset.caption;
  const download = document.getElementById('viewer-download');
  if (download) download.href = asset.urls.original;
  stopMotion();
  const isVideo = asset.mediaType === 'video';
  liveBadge.hidden = isVideo || !asset.urls.video;
  if (asset.urls.video && !isVideo) motion.src = asset.urls.video; else motion.removeAttribute('src');
  // A video plays in a player of its own, its poster (the preview) shown until it starts.
  player.pause();
  viewerImage.hidden = isVideo;
  player.hidden = !isVideo;
  if (isVideo) {
    player.poster = asset.urls.preview;
    player.src = asset.urls.video;
  } else {
    player.removeAttribute('src');
    player.removeAttribute('poster');
  }
  if (!viewer.open) viewer.showModal();
}
const player = document.getElementById('viewer-video');

// A live photo plays its moment while it is pressed (or hovered), then shows the still again.
const figure = document.getElementById('viewer-figure');
const motion = document.getElementById('viewer-motion');
const liveBadge = document.getElementById('viewer-live');
function playMotion() {
  if (!motion.getAttribute('src')) return;
  motion.hidden = false;
  motion.currentTime = 0;
  motion.play().catch(() => stopMotion());
}
function stopMotion() {
  motion.pause();
  motion.hidden = true;
}
figure.addEventListener('pointerdown', playMotion);
figure.addEventListener('mouseenter', playMotion);
figure.addEventListener('mouseleave', stopMotion);
addEventListener('pointerup', stopMotion);
motion.addEventListener('ended', stopMotion);

function step(delta) {
  const ids = order();
  const next = ids[ids.indexOf(current) + delta];
  if (next) openViewer(next);
  else if (delta > 0) loadMore();
}

pageViewer(viewer, step);
viewer.addEventListener('close', () => {
  current = null;
  viewerImage.removeAttribute('src');
  stopMotion();
  player.pause();
  player.removeAttribute('src');
});

async function act(request, done) {
  const id = current;
  const ids = order();
  const next = ids[ids.indexOf(id) + 1] ?? ids[ids.indexOf(id) - 1];
  try {
    await request(id);
    remove(id);
    toast(done);
    if (next && next !== id) openViewer(next); else viewer.close();
  } catch (error) {
    toast(error.message, 4000);
  }
}

document.getElementById('viewer-delete')?.addEventListener('click', () =>
  act((id) => api(`/api/v1/library/assets/${id}`, { method: 'DELETE' }), t('library_moved_to_trash')));
document.getElementById('viewer-restore')?.addEventListener('click', () =>
  act((id) => api(`/api/v1/library/assets/${id}/restore`, { method: 'POST' }), t('library_restored')));

const confirmEmpty = document.getElementById('confirm-empty');
document.getElementById('empty-trash')?.addEventListener('click', () => confirmEmpty.showModal());
confirmEmpty.addEventListener('close', async () => {
  if (confirmEmpty.returnValue !== 'empty') return;
  try {
    const result = await api('/api/v1/library/trash', { method: 'DELETE' });
    for (const id of [...assets.keys()]) remove(id);
    toast(t('library_trash_emptied', { n: result.deleted }));
  } catch (error) {
    toast(error.message, 4000);
  }
});

// Uploads: the same queue as guests' shots (kept in IndexedDB until the server has them), sent to the library.
if (!inTrash) {
  const queue = new UploadQueue(UploadQueue.library);
  const statusText = document.getElementById('library-status-text');
  const cancel = document.getElementById('library-cancel');
  const showQueue = async () => {
    const waiting = (await queue.pending()).length;
    status.hidden = waiting === 0;
    if (waiting === 0) cancel.hidden = true;
    statusText.textContent = t(navigator.onLine ? 'library_uploading' : 'waiting_network', { n: waiting });
  };
  queue.addEventListener('change', showQueue);
  queue.addEventListener('waiting', showQueue);
  queue.addEventListener('uploaded', (event) => { if (event.detail.photo) place(event.detail.photo); });
  // Several files already there (a second import) are said once, with how many.
  let duplicates = 0;
  let duplicatesSaid = null;
  queue.addEventListener('duplicate', () => {
    duplicates += 1;
    clearTimeout(duplicatesSaid);
    duplicatesSaid = setTimeout(() => {
      toast(duplicates > 1 ? t('library_already_there_n', { n: duplicates }) : t('library_already_there'), 3000);
      duplicates = 0;
    }, 600);
  });
  queue.addEventListener('failed', (event) => toast(t('library_upload_failed', { reason: event.detail.problem?.detail ?? event.detail.status }), 5000));
  // A full storage holds the uploads: they wait, and may be dropped here.
  queue.addEventListener('held', () => { toast(t('library_quota_full'), 5000); cancel.hidden = false; });
  cancel.addEventListener('click', async () => {
    for (const item of await queue.pending()) await queue.remove(item.id);
    cancel.hidden = true;
    showQueue();
  });
  showQueue();

  const add = async (files) => {
    const photos = [...files].filter((file) =>
      file.type.startsWith('image/') || file.type.startsWith('video/') || /\.(heic|heif|avif|mov|mp4|webm)$/i.test(file.name));
    for (const file of photos) await queue.add(file, 'library');
  };
  // Photos shared to the installed app (the service worker kept them), then the worker registered for next time.
  if ('caches' in window) {
    const cache = await caches.open('disposable-shared');
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      const name = decodeURIComponent(response.headers.get('X-File-Name') || 'shared');
      await add([new File([await response.blob()], name, { type: response.headers.get('Content-Type') || '' })]);
      await cache.delete(request);
    }
    if (location.search.includes('shared')) history.replaceState(null, '', '/library');
  }
  navigator.serviceWorker?.register('/sw.js').catch(() => {});
  const input = document.getElementById('library-files');
  input.addEventListener('change', async () => { await add(input.files); input.value = ''; });
  // An Instagram export, read here, each photo queued with its post's date and caption.
  const instagram = document.getElementById('instagram-file');
  instagram.addEventListener('change', async () => {
    const [zip] = instagram.files;
    instagram.value = '';
    if (!zip) return;
    try {
      const result = await importInstagram(zip, (file, caption) => queue.add(file, 'library', { caption }), (n, total) => {
        status.hidden = false;
        statusText.textContent = t('library_instagram_reading', { n: n + 1, total });
      }, Number(instagram.dataset.maxBytes) || Infinity);
      toast(t('library_instagram_added', { n: result.added }), 4000);
      if (result.missing > 0) toast(t('library_instagram_missing', { n: result.missing }), 6000);
      if (result.tooLarge > 0) toast(t('library_instagram_too_large', { n: result.tooLarge }), 6000);
    } catch (error) {
      toast(error.message === 'not-instagram' || error.message === 'not a zip' ? t('library_instagram_wrong') : error.message, 8000);
    }
    showQueue();
  });
  const hint = document.getElementById('drop-hint');
  document.addEventListener('dragover', (event) => { event.preventDefault(); hint.hidden = false; });
  document.addEventListener('dragleave', (event) => { if (!event.relatedTarget) hint.hidden = true; });
  document.addEventListener('drop', (event) => {
    event.preventDefault();
    hint.hidden = true;
    add(event.dataTransfer.files);
  });
}

// What my other devices (and the renderer) change shows up here as it happens.
const feed = new EventSource(`/api/v1/library/changes?since=${config.revision}`);
for (const kind of ['added', 'updated', 'trashed', 'restored']) {
  feed.addEventListener(kind, (event) => { const change = JSON.parse(event.data); if (change.asset) place(change.asset); });
}
feed.addEventListener('deleted', (event) => remove(JSON.parse(event.data).assetId));

loadMore();
