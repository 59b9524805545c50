// The galleries: the grid with endless scrolling, live arrivals from the change feed,
// "developing" with a countdown, My shots with delete, multi-select to a ZIP, and the full-screen viewer.
import { t, eventConfig, api, toast, photoAlt, formatTime, showPhoto, nameWithFace, pageViewer } from './app.js';
import { UploadQueue, watchQueue } from './queue.js';
import { noteTile, reactionBadge, socialPanel, composers } from './guestbook.js';

const config = eventConfig();
const grid = document.getElementById('grid');
const mine = grid.dataset.mine === 'true';
const empty = document.getElementById('empty');
const more = document.getElementById('more');
const developing = document.getElementById('developing');
const queue = new UploadQueue(config.id, config.firstLook);
watchQueue(queue, config, t);

const photos = new Map(); // id → photo, in grid order through the DOM
let cursor = null;
let finished = false;
let loading = false;
let changeSeq = 0;
let feed = null;
let selecting = false;
const selected = new Set();
let developingCount = 0;
/** The photo whose tile opened the viewer. */
let openedFrom = null;

function canDelete(photo) { return photo.mine || config.role === 'organizer'; }

function render(photo) {
  let item = grid.querySelector(`li[data-id="${photo.id}"]`);
  if (!item) {
    item = document.createElement('li');
    item.dataset.id = photo.id;
  }
  item.replaceChildren();
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'thumb';
  if (photo.kind === 'note') {
    noteTile(button, photo);
  } else if (photo.status === 'ready') {
    const image = document.createElement('img');
    showPhoto(image, photo, 'thumbnail');
    image.alt = photoAlt(photo);
    image.loading = 'lazy';
    image.decoding = 'async';
    button.append(image);
    if (photo.kind === 'video') {
      // A video's tile is its poster, with its length.
      const badge = document.createElement('span');
      badge.className = 'video-badge';
      const seconds = photo.durationSeconds ?? 0;
      badge.textContent = `▶ ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
      image.alt = t('video_label', { name: photo.shooter.name, seconds }) + (photo.caption ? `. ${photo.caption}` : '');
      button.append(badge);
    }
    // The tile is named by what it shows (not only by the shooter's name written on it).
    button.setAttribute('aria-label', image.alt);
  } else {
    const placeholder = document.createElement('span');
    placeholder.className = 'pending';
    placeholder.textContent = t('processing');
    button.append(placeholder);
    button.setAttribute('aria-label', photoAlt(photo));
  }
  const who = document.createElement('span');
  who.className = 'who';
  nameWithFace(who, photo, photo.approved === false ? `${photo.shooter.name} · ${t('awaiting_approval')}` : photo.shooter.name);
  button.append(who);
  const reactions = reactionBadge(photo);
  if (reactions) button.append(reactions);
  item.append(button);
  item.classList.toggle('selected', selected.has(photo.id));
  return item;
}

function add(photo, atTop) {
  if (mine && !photo.mine) return;
  if (photo.status === 'failed') return;
  const known = photos.get(photo.id);
  // The feed does not say whether I like a post: keep what the page said.
  if (known && photo.likedByMe === undefined) photo.likedByMe = known.likedByMe;
  photos.set(photo.id, photo);
  const item = render(photo);
  if (!known) atTop ? grid.prepend(item) : grid.append(item);
  empty.hidden = true;
}

function remove(id) {
  photos.delete(id);
  selected.delete(id);
  grid.querySelector(`li[data-id="${id}"]`)?.remove();
  empty.hidden = photos.size > 0 || !finished;
}

async function loadMore() {
  if (loading || finished) return;
  loading = true;
  try {
    const params = new URLSearchParams({ limit: '40' });
    if (mine) params.set('mine', 'true');
    if (cursor) params.set('cursor', cursor);
    const page = await api(`/api/v1/events/${config.id}/photos?${params}`);
    if (!feed) {
      changeSeq = page.changeSeq;
      showDeveloping(page);
      follow();
    }
    page.items.forEach((photo) => add(photo, false));
    cursor = page.nextCursor;
    finished = !cursor;
    empty.hidden = photos.size > 0 || !finished || !developing.hidden;
  } catch (error) {
    toast(error.message, 4000);
  } finally {
    loading = false;
  }
  if (!finished && more.getBoundingClientRect().top < innerHeight * 2) loadMore();
}

function showDeveloping(page) {
  if (mine || page.revealed || config.role !== 'guest') return;
  developingCount = page.developingCount || 0;
  developing.hidden = false;
  document.getElementById('toolbar').hidden = true;
  updateDeveloping();
  const countdown = document.getElementById('countdown');
  const until = new Date(countdown.dataset.until).getTime();
  const tick = () => {
    const left = Math.max(0, Math.round((until - Date.now()) / 1000));
    const d = Math.floor(left / 86400), h = Math.floor((left % 86400) / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    // The two largest units, leaving out a zero one: "2h 5min", "5min", "46s" (never "0min 46s").
    const units = [[d, 'days'], [h, 'hours'], [m, 'minutes'], [s, 'seconds']];
    const first = units.findIndex(([value]) => value > 0);
    const parts = units.slice(first, first + 2).filter(([value]) => value > 0).map(([value, unit]) => `${value}${t(unit)}`);
    countdown.textContent = left > 0 ? t('countdown', { time: parts.join(' ') }) : t('revealed');
  };
  tick();
  setInterval(tick, 1000);
}

function updateDeveloping() {
  document.getElementById('developing-count').textContent = t('developing_count', { n: developingCount });
}

/** New photos appear without a reload; the stream resumes where it left off after a drop. */
function follow() {
  feed = new EventSource(`/api/v1/events/${config.id}/changes?lastEventId=${changeSeq}`);
  const on = (kind, handler) => feed.addEventListener(kind, (message) => handler(JSON.parse(message.data)));
  on('photo-added', (change) => {
    if (change.photo) add(change.photo, true);
    else if (change.developing) { developingCount += 1; updateDeveloping(); }
  });
  on('photo-ready', (change) => { if (change.photo) add(change.photo, true); });
  // A caption written or changed, shown at once in the grid's data and an open viewer.
  // A photo shown with its thumbnail alone gets its preview; an open viewer swaps it in, unless the
  // original is already there.
  on('photo-updated', (change) => {
    if (!change.photo || !photos.has(change.photo.id)) return;
    const before = photos.get(change.photo.id);
    photos.set(change.photo.id, { ...change.photo, likedByMe: before.likedByMe });
    // The phone's first look replaced by the server's thumbnail: the tile shows the new one.
    if (before.urls?.thumbnail !== change.photo.urls?.thumbnail) render(photos.get(change.photo.id));
    if (current !== change.photo.id) return;
    showCaption(change.photo);
    if (before.previewPending && !change.photo.previewPending && change.photo.kind !== 'video'
        && viewerImage.src !== new URL(change.photo.urls.original, location.href).href) {
      showPhoto(viewerImage, change.photo, 'preview');
    }
  });
  on('photo-failed', (change) => remove(change.photo?.id || change.photoId));
  on('photo-removed', (change) => {
    if (change.photo || change.photoId) remove(change.photo?.id || change.photoId);
    else if (change.developing) { developingCount = Math.max(0, developingCount - 1); updateDeveloping(); }
  });
  // Comments and likes, counted on the tiles and shown under the open post.
  for (const kind of ['comment-added', 'comment-removed', 'likes-changed']) on(kind, (change) => social.apply(kind, change));
  // Hidden photos are not re-sent at the reveal: load the gallery again.
  on('event-revealed', () => { toast(t('revealed')); setTimeout(() => location.reload(), 800); });
  on('event-deleted', () => { location.href = '/'; });
}

// Uploads from this phone show up at once in My shots, even before the feed says so.
queue.addEventListener('uploaded', (event) => { if (event.detail.photo) add(event.detail.photo, true); });

new IntersectionObserver((entries) => { if (entries.some((entry) => entry.isIntersecting)) loadMore(); }, { rootMargin: '600px' }).observe(more);

// Multi-select → one ZIP of just those photos, or, with an account, those photos kept in my library.
const selectToggle = document.getElementById('select-toggle');
const downloadSelected = document.getElementById('download-selected');
const keepSelected = document.getElementById('keep-selected');
function updateSelection() {
  downloadSelected.hidden = !selecting || selected.size === 0;
  downloadSelected.textContent = t('selected', { n: selected.size });
  keepSelected.hidden = downloadSelected.hidden || !config.hasAccount;
  keepSelected.textContent = t('keep_selected', { n: selected.size });
}
keepSelected.addEventListener('click', async () => {
  keepSelected.disabled = true;
  let kept = 0;
  for (const id of [...selected].filter((id) => photos.get(id)?.kind !== 'note')) {
    try { await api(`/api/v1/photos/${id}/save-to-library`, { method: 'POST' }); kept += 1; } catch (error) { toast(error.message); }
  }
  keepSelected.disabled = false;
  toast(t('saved_n_to_library', { n: kept }));
});
selectToggle.addEventListener('click', () => {
  selecting = !selecting;
  selectToggle.setAttribute('aria-pressed', String(selecting));
  if (!selecting) { selected.clear(); grid.querySelectorAll('li.selected').forEach((li) => li.classList.remove('selected')); }
  updateSelection();
});
downloadSelected.addEventListener('click', () => {
  const link = document.createElement('a');
  link.href = `/api/v1/events/${config.id}/archive.zip?ids=${[...selected].join(',')}`;
  link.download = '';
  document.body.append(link);
  link.click();
  link.remove();
});
if (!config.allowGuestDownloads) { selectToggle.hidden = true; }

grid.addEventListener('click', (event) => {
  const item = event.target.closest('li[data-id]');
  if (!item) return;
  const id = item.dataset.id;
  if (selecting) {
    selected.has(id) ? selected.delete(id) : selected.add(id);
    item.classList.toggle('selected', selected.has(id));
    updateSelection();
  } else if (photos.get(id)?.status === 'ready') {
    openedFrom = id;
    openViewer(id);
  }
});

// The viewer — preview first, then the original; swipe and arrow keys; download; delete.
const viewer = document.getElementById('viewer');
const viewerImage = document.getElementById('viewer-image');
const caption = document.getElementById('viewer-caption');
const downloadLink = document.getElementById('viewer-download');
const shareButton = document.getElementById('viewer-share');
const saveButton = document.getElementById('viewer-save');
const deleteButton = document.getElementById('viewer-delete');
const confirmDialog = document.getElementById('confirm-delete');
const viewerNote = document.getElementById('viewer-note');
const viewerVideo = document.getElementById('viewer-video');

/** Stops and empties the viewer's player (another post shown, or the viewer closed). */
function stopVideo() {
  viewerVideo.pause();
  viewerVideo.removeAttribute('src');
  viewerVideo.removeAttribute('poster');
  viewerVideo.hidden = true;
}
let current = null;
const social = socialPanel({ config, photos, changed: (photo) => { if (grid.querySelector(`li[data-id="${photo.id}"]`)) render(photo); } });
composers({ config, posted: (photo) => add(photo, true) });

function readyIds() { return [...grid.querySelectorAll('li[data-id]')].map((li) => li.dataset.id).filter((id) => photos.get(id)?.status === 'ready'); }

function openViewer(id) {
  const photo = photos.get(id);
  if (!photo) return;
  current = id;
  social.show(photo);
  deleteButton.hidden = !canDelete(photo);
  stopVideo();
  if (photo.kind === 'note') {
    // A note is its words, large, in place of a picture.
    viewerImage.hidden = true;
    viewerImage.removeAttribute('src');
    viewerNote.hidden = false;
    viewerNote.textContent = photo.text ?? '';
    nameWithFace(caption, photo, t('note_by', { name: photo.shooter.name }));
    downloadLink.hidden = true;
    shareButton.hidden = true;
    saveButton.hidden = true;
    captionText.hidden = true;
    captionButton.hidden = true;
    if (!viewer.open) viewer.showModal();
    return;
  }
  viewerNote.hidden = true;
  if (photo.kind === 'video' && photo.urls.video) {
    // The playable copy, its poster shown until it plays.
    viewerImage.hidden = true;
    viewerImage.removeAttribute('src');
    viewerVideo.hidden = false;
    viewerVideo.poster = photo.urls.preview;
    viewerVideo.src = photo.urls.video;
    showCaptionTrack(photo);
    nameWithFace(caption, photo, t('video_label', { name: photo.shooter.name, seconds: photo.durationSeconds ?? 0 }));
    downloadLink.href = `${photo.urls.original}${photo.urls.original.includes('?') ? '&' : '?'}download`;
    downloadLink.hidden = !config.allowGuestDownloads && !photo.mine;
    showKeeping(photo);
    showCaption(photo);
    if (!viewer.open) viewer.showModal();
    return;
  }
  viewerImage.hidden = false;
  showPhoto(viewerImage, photo, 'preview');
  viewerImage.alt = photoAlt(photo);
  nameWithFace(caption, photo, photoAlt(photo));
  downloadLink.href = `${photo.urls.original}${photo.urls.original.includes('?') ? '&' : '?'}download`;
  downloadLink.hidden = !config.allowGuestDownloads && !photo.mine;
  showKeeping(photo);
  showCaption(photo);
  const original = new Image();
  original.onload = () => { if (current === id) viewerImage.src = original.src; };
  viewerImage.onload = () => { if (!original.src) original.src = photo.urls.original; };
  if (!viewer.open) viewer.showModal();
}

/** A video's caption, when its shooter wrote one, as a caption track over the whole clip: shown on the picture
 * (also full screen) and read by screen readers. Made in the page, not fetched: nothing to allow in media-src. */
function showCaptionTrack(photo) {
  for (const track of viewerVideo.textTracks) track.mode = 'disabled';
  if (!photo.caption || typeof VTTCue === 'undefined') return;
  const track = viewerVideo.addTextTrack('captions', t('caption_track'), document.documentElement.lang);
  track.addCue(new VTTCue(0, Math.max(1, photo.durationSeconds ?? 0) + 1, photo.caption));
  track.mode = 'showing';
}

/** Sharing hands the photo itself to the phone's share sheet (the file as this viewer may download it: others'
 * originals come without their location); where files cannot be shared, the gallery's link. Keeping copies it into
 * the account's library, where it outlives the event. */
function showKeeping(photo) {
  const downloadable = config.allowGuestDownloads || photo.mine;
  shareButton.hidden = !navigator.share || !downloadable;
  saveButton.hidden = !config.hasAccount || !downloadable;
  saveButton.disabled = false;
}
shareButton.addEventListener('click', async () => {
  const photo = photos.get(current);
  if (!photo) return;
  shareButton.disabled = true;
  try {
    const response = await fetch(photo.urls.original, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(String(response.status));
    const blob = await response.blob();
    const file = new File([blob], photo.downloadName || `${photo.id}.jpg`, { type: blob.type || 'image/jpeg' });
    if (navigator.canShare?.({ files: [file] })) {
      await navigator.share({ files: [file], title: config.name });
    } else {
      await navigator.share({ title: config.name, url: `${location.origin}/e/${config.code}` });
      toast(t('shared_link'));
    }
  } catch (error) {
    if (error.name !== 'AbortError') toast(error.message);
  } finally {
    shareButton.disabled = false;
  }
});
saveButton.addEventListener('click', async () => {
  const id = current;
  saveButton.disabled = true;
  try {
    await api(`/api/v1/photos/${id}/save-to-library`, { method: 'POST' });
    toast(t('saved_to_library'));
  } catch (error) {
    saveButton.disabled = false;
    toast(error.message);
  }
});

function step(delta) {
  const ids = readyIds();
  const index = ids.indexOf(current);
  if (index < 0) return;
  const next = ids[index + delta];
  if (next) openViewer(next);
  else if (delta > 0 && !finished) loadMore();
}

/** The photo's caption under it; its shooter may write or change it. */
const captionText = document.getElementById('viewer-text');
const captionButton = document.getElementById('viewer-caption-edit');
const captionDialog = document.getElementById('caption-dialog');
const captionInput = document.getElementById('caption-input');
function showCaption(photo) {
  captionText.textContent = photo.caption ?? '';
  captionText.hidden = !photo.caption;
  captionButton.hidden = !photo.mine;
  captionButton.setAttribute('aria-label', t(photo.caption ? 'caption_edit' : 'caption_add'));
}
captionButton.addEventListener('click', () => {
  captionInput.value = photos.get(current)?.caption ?? '';
  captionDialog.showModal();
  captionInput.focus();
});
captionDialog.addEventListener('close', async () => {
  if (captionDialog.returnValue !== 'save' || !current) return;
  const id = current;
  try {
    const photo = await api(`/api/v1/photos/${id}`, {
      method: 'PATCH', headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ caption: captionInput.value }),
    });
    photos.set(id, photo);
    if (current === id) showCaption(photo);
  } catch (error) {
    toast(error.message, 4000);
  }
});

pageViewer(viewer, step);
// The dialog gives focus back to the tile it was opened from; a tile drawn again meanwhile (the server's thumbnail
// replacing the phone's first look) is a new button, so focus goes to that one.
viewer.addEventListener('close', () => {
  current = null; social.hide(); stopVideo(); viewerImage.removeAttribute('src');
  if (openedFrom && (!document.activeElement || document.activeElement === document.body)) {
    grid.querySelector(`li[data-id="${openedFrom}"] button`)?.focus();
  }
});

deleteButton.addEventListener('click', () => confirmDialog.showModal());
confirmDialog.addEventListener('close', async () => {
  if (confirmDialog.returnValue !== 'delete' || !current) return;
  const id = current;
  try {
    await api(`/api/v1/photos/${id}`, { method: 'DELETE' });
    viewer.close();
    remove(id);
  } catch (error) {
    toast(error.status === 404 ? t('delete_failed') : error.message, 4000);
  }
});

// A notification's link opens its post (`#post=ID`), here or arriving from another page.
async function openLinked() {
  const id = new URLSearchParams(location.hash.slice(1)).get('post');
  if (!id) return;
  if (!photos.has(id)) {
    try { add(await api(`/api/v1/photos/${encodeURIComponent(id)}`), false); } catch { return; }
  }
  if (photos.has(id)) openViewer(id);
}
addEventListener('hashchange', openLinked);
loadMore().then(openLinked);
