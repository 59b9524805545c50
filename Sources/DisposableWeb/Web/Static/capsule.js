// The countdown to the next capsule (/capsules), and one capsule (/capsules/yyyy-mm): enlarge its photos,
// share its collage, edit it — how many photos, which ones, the words and the song — through the API.
import { t, api, formatTaken, locale, pageViewer, toast } from './app.js';

/** "3 days 4 hours", "4 hours 12 minutes", "12 minutes": what is left, in the reader's language. */
function left(ms) {
  const minutes = Math.max(0, Math.ceil(ms / 60000));
  const [days, hours, mins] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  const unit = (unit, n) => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(n);
  const parts = days ? [unit('day', days), hours && unit('hour', hours)] : hours ? [unit('hour', hours), mins && unit('minute', mins)] : [unit('minute', mins)];
  return parts.filter(Boolean).join(' ');
}

const countdown = document.getElementById('countdown');
if (countdown) {
  const until = new Date(countdown.dataset.until).getTime();
  const tick = () => {
    const ms = until - Date.now();
    countdown.textContent = ms > 0 ? t('capsule_in', { time: left(ms) }) : t('capsule_arriving');
  };
  tick();
  setInterval(tick, 30000);
}

const root = document.getElementById('capsule');
if (root) {
  const month = root.dataset.month;
  const base = `/api/v1/library/capsules/${encodeURIComponent(month)}`;
  const grid = document.getElementById('capsule-photos');
  const form = document.getElementById('capsule-form');
  const viewer = document.getElementById('viewer');
  const image = document.getElementById('viewer-image');
  const picker = document.getElementById('picker');
  const tiles = () => [...grid.querySelectorAll('li')];
  let editing = false;
  let current = 0;

  // Enlarge: the viewer pages through the capsule's photos.
  const show = (index) => {
    const buttons = grid.querySelectorAll('button.thumb');
    current = (index + buttons.length) % buttons.length;
    const button = buttons[current];
    image.src = button.dataset.preview;
    image.alt = button.querySelector('img').alt;
    document.getElementById('viewer-position').textContent = `${current + 1} / ${buttons.length}`;
  };
  pageViewer(viewer, (step) => show(current + step));

  // While editing, a tap on a photo offers the month's others in its place.
  let replacing = null;
  async function pick(tile) {
    replacing = tile;
    const list = document.getElementById('picker-photos');
    list.textContent = '';
    picker.showModal();
    let candidates;
    try {
      candidates = (await api(`${base}/candidates`)).items;
    } catch (error) {
      list.textContent = error.message;
      return;
    }
    const chosen = new Set(tiles().map((li) => li.dataset.id));
    for (const asset of candidates.filter((asset) => !chosen.has(asset.id))) {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'thumb';
      const img = document.createElement('img');
      img.src = asset.urls.thumbnail;
      img.alt = t('capsule_pick_photo', { date: formatTaken(asset, { dateStyle: 'medium' }) });
      img.loading = 'lazy';
      button.append(img);
      button.addEventListener('click', () => {
        replacing.dataset.id = asset.id;
        const thumb = replacing.querySelector('button.thumb');
        thumb.dataset.preview = asset.urls.preview;
        thumb.querySelector('img').src = asset.urls.thumbnail;
        thumb.querySelector('img').alt = img.alt;
        picker.close();
      });
      li.append(button);
      list.append(li);
    }
    if (!list.children.length) list.textContent = t('capsule_pick_none');
  }
  document.getElementById('picker-close').addEventListener('click', () => picker.close());

  grid.addEventListener('click', (event) => {
    const button = event.target.closest('button.thumb');
    if (!button) return;
    if (editing) pick(button.closest('li'));
    else { show(Number(tiles().indexOf(button.closest('li')))); viewer.showModal(); }
  });

  const editButton = document.getElementById('capsule-edit');
  const setEditing = (on) => {
    editing = on;
    form.hidden = !on;
    editButton.hidden = on;
    grid.classList.toggle('editing', on);
    if (on) form.querySelector('input, textarea').focus();
  };
  editButton.addEventListener('click', () => setEditing(true));
  document.getElementById('capsule-cancel').addEventListener('click', () => location.reload());

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = document.getElementById('capsule-error');
    error.hidden = true;
    const photos = tiles().map((li) => li.dataset.id);
    const count = Number(form.count.value);
    const body = { quote: form.quote.value, songTitle: form.songTitle.value, songArtist: form.songArtist.value };
    if (photos.length) body.photos = photos;
    if (count && count !== photos.length) body.count = count;
    const save = document.getElementById('capsule-save');
    save.disabled = true;
    try {
      await api(base, { method: 'PATCH', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
      location.reload();
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
      save.disabled = false;
    }
  });

  // The song's clip: a sound file picked is sent as it is; the server keeps its first 30 seconds. The page is
  // changed in place, never reloaded: words typed in the form stay.
  const clipFile = document.getElementById('capsule-clip-file');
  const clipRemove = document.getElementById('capsule-clip-remove');
  const showClip = (url) => {
    let player = document.getElementById('capsule-clip');
    if (url && !player) {
      player = Object.assign(document.createElement('audio'), { id: 'capsule-clip', className: 'capsule-clip', controls: true, preload: 'none' });
      player.setAttribute('aria-label', t('capsule_clip'));
      document.getElementById('capsule-photos').before(player);
    }
    if (url) player.src = url; else player?.remove();
    clipRemove.hidden = !url;
  };
  clipFile.addEventListener('change', async () => {
    const file = clipFile.files[0];
    if (!file) return;
    const error = document.getElementById('capsule-error');
    const status = document.getElementById('capsule-clip-status');
    error.hidden = true;
    status.textContent = t('capsule_clip_sending');
    try {
      const capsule = await api(`${base}/clip`, { method: 'PUT', body: file, headers: { 'Content-Type': file.type || 'application/octet-stream', Accept: 'application/json' } });
      showClip(capsule.clipURL);
      status.textContent = t('capsule_clip_added');
    } catch (failure) {
      status.textContent = '';
      error.textContent = failure.message;
      error.hidden = false;
    }
    clipFile.value = '';
  });
  clipRemove.addEventListener('click', async () => {
    try {
      await api(`${base}/clip`, { method: 'DELETE' });
      showClip(null);
      document.getElementById('capsule-clip-status').textContent = t('capsule_clip_removed');
    } catch (failure) { toast(failure.message, 4000); }
  });

  // The Story Board: my friends see it this month.
  for (const [id, method] of [['board-share', 'PUT'], ['board-unshare', 'DELETE']]) {
    document.getElementById(id)?.addEventListener('click', async () => {
      try {
        await api(`${base}/share`, { method });
        document.getElementById('board-share').hidden = method === 'PUT';
        document.getElementById('board-shared').hidden = method !== 'PUT';
      } catch (failure) { toast(failure.message, 4000); }
    });
  }

  // Share the collage as a file where the device can, else its link.
  const share = document.getElementById('capsule-share');
  const download = document.getElementById('capsule-download');
  if (share && navigator.share) {
    const name = `${root.dataset.title} — ${t('capsule_file')}`;
    download.download = `${name}.jpg`;
    share.hidden = false;
    share.addEventListener('click', async () => {
      try {
        const blob = await (await fetch(download.href, { credentials: 'same-origin' })).blob();
        const file = new File([blob], `${name}.jpg`, { type: 'image/jpeg' });
        if (navigator.canShare?.({ files: [file] })) await navigator.share({ files: [file], title: name });
        else await navigator.share({ title: name, url: location.href });
      } catch { /* the reader closed the share sheet */ }
    });
  }
}
