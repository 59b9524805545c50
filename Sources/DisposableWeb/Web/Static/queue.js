// Every shot goes into a queue kept in IndexedDB, so it survives a reload, a dead network or a closed tab.
// Each item has an id made here and sent as Idempotency-Key: retries can never make a second photo.
const DB_NAME = 'disposable';
// Files above this go with tus (resumable), in pieces of RESUMABLE_PIECE bytes.
const RESUMABLE_FROM = 4 * 1024 * 1024;
const RESUMABLE_PIECE = 1024 * 1024;
const STORE = 'uploads';

function openDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'id' }).createIndex('event', 'eventId');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function run(db, mode, work) {
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(STORE, mode);
    const result = work(transaction.objectStore(STORE));
    transaction.oncomplete = () => resolve(result?.result ?? result);
    transaction.onerror = () => reject(transaction.error);
  });
}

/** An id that works on plain http too, where crypto.randomUUID is missing. */
function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export class UploadQueue extends EventTarget {
  /** The queue of my own library's uploads, kept beside the events' ones. */
  static library = 'library';

  /** `firstLook`: the size the server takes for a photo's first look (`{side, bytes}`, from the page's config);
   * without it, photos go without one. */
  constructor(eventId, firstLook = null) {
    super();
    this.eventId = eventId;
    this.firstLookLimits = firstLook;
    this.database = openDatabase();
    this.running = false;
    this.retryTimer = null;
    this.attempts = 0;
    addEventListener('online', () => this.kick());
    this.kick();
  }

  /** `extra.caption`: the words an import brings with a file to the library (an Instagram post's caption). */
  async add(blob, source, extra = {}) {
    const item = { id: newId(), eventId: this.eventId, blob, type: blob.type || 'image/jpeg', source, createdAt: Date.now() };
    if (extra.caption) item.caption = extra.caption;
    const db = await this.database;
    // Kept first: the shot survives a closed tab even before its first look is made.
    await run(db, 'readwrite', (store) => store.put(item));
    this.dispatchEvent(new CustomEvent('change'));
    if (this.eventId !== UploadQueue.library && this.firstLookLimits) {
      const firstLook = await makeFirstLook(blob, this.firstLookLimits).catch(() => null);
      // Only onto an item still waiting: one already sent (by a queue that was running) goes without.
      if (firstLook) {
        await run(db, 'readwrite', (store) => {
          const waiting = store.get(item.id);
          waiting.onsuccess = () => { if (waiting.result) store.put({ ...waiting.result, firstLook }); };
        });
      }
    }
    this.kick();
    return item.id;
  }

  async pending() {
    const db = await this.database;
    const items = await run(db, 'readonly', (store) => store.index('event').getAll(this.eventId));
    return items.sort((a, b) => a.createdAt - b.createdAt);
  }

  async remove(id) {
    const db = await this.database;
    await run(db, 'readwrite', (store) => store.delete(id));
    this.dispatchEvent(new CustomEvent('change'));
  }

  /** Sends what is waiting, one at a time, oldest first; on a network failure waits and tries again. */
  async kick() {
    if (this.running) return;
    this.running = true;
    clearTimeout(this.retryTimer);
    try {
      for (let items = await this.pending(); items.length > 0; items = await this.pending()) {
        const item = items[0];
        const outcome = await this.send(item);
        if (outcome === 'again') continue;
        if (outcome === 'retry') {
          this.attempts += 1;
          const delay = Math.min(30000, 1000 * 2 ** Math.min(this.attempts, 5)) * (0.75 + Math.random() / 2);
          this.retryTimer = setTimeout(() => this.kick(), delay);
          this.dispatchEvent(new CustomEvent('waiting', { detail: { count: items.length } }));
          return;
        }
        this.attempts = 0;
        await this.remove(item.id);
      }
    } finally {
      this.running = false;
    }
  }

  send(item) {
    // A large file goes with tus, in pieces, so a phone that drops off the venue's Wi-Fi goes on where it
    // stopped — also after a reload, since the upload's address is kept with the item. Videos always go so.
    const library = item.eventId === UploadQueue.library;
    // An item the server had no room to stage (507) goes in one request instead.
    const resumable = !item.plain && (item.blob.size > RESUMABLE_FROM || item.type.startsWith('video/'));
    if (resumable && !library) return this.sendResumable(item).catch(() => 'retry');
    return new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open('POST', library ? '/api/v1/library/assets' : `/api/v1/events/${encodeURIComponent(item.eventId)}/photos`);
      // With a first look, a form (its first, small part first); the browser writes its Content-Type.
      let form = null;
      if (item.firstLook && !library) {
        form = new FormData();
        form.append('firstLook', item.firstLook, 'first-look.jpg');
        form.append('photo', item.blob, item.blob.name || 'photo');
      } else {
        request.setRequestHeader('Content-Type', item.type);
      }
      request.setRequestHeader('Idempotency-Key', item.id);
      if (library) {
        // The file's name, and its date for files without EXIF (screenshots, scans): the server prefers EXIF.
        if (item.blob.name) request.setRequestHeader('X-File-Name', encodeURIComponent(item.blob.name));
        if (item.blob.lastModified) request.setRequestHeader('X-Taken-At', new Date(item.blob.lastModified).toISOString());
        if (item.caption) request.setRequestHeader('X-Caption', encodeURIComponent(item.caption));
      } else {
        request.setRequestHeader('X-Photo-Source', item.source);
      }
      request.setRequestHeader('Accept', 'application/json');
      request.upload.onprogress = (progress) => this.progress(item, progress.loaded, progress.total);
      request.onerror = () => resolve('retry');
      request.ontimeout = () => resolve('retry');
      request.onload = () => {
        const body = parse(request.responseText);
        if (form && request.status === 422 && body?.type?.endsWith('/first-look-refused')) {
          // The photo itself is fine: it goes again at once, without its first look.
          this.update({ ...item, firstLook: null }).then(() => resolve('again'), () => resolve('retry'));
          return;
        }
        resolve(this.settle(item, request.status, body, body));
      };
      request.timeout = 120000;
      request.send(form ?? item.blob);
    });
  }

  progress(item, loaded, total) {
    this.dispatchEvent(new CustomEvent('progress', { detail: { id: item.id, loaded, total } }));
  }

  /** What an answer means for the item: 'done' (sent, or refused for good) or 'retry'. */
  settle(item, status, body, photo) {
    if (status === 200 || status === 201) {
      this.dispatchEvent(new CustomEvent('uploaded', { detail: { id: item.id, photo } }));
      return 'done';
    }
    if (status === 409 && body?.type?.endsWith('/already-exists')) {
      // The same photo is already in the event (sent from another tab, say): nothing is lost, no shot is used.
      this.dispatchEvent(new CustomEvent('duplicate', { detail: { id: item.id, existingId: body.existingId ?? null } }));
      return 'done';
    }
    if (status >= 500 || status === 408 || status === 429 || status === 0) return 'retry';
    if (status === 403 && body?.type?.endsWith('/quota-exceeded')) {
      // The organizer's storage is full: say so, and keep the photo until room is made.
      this.dispatchEvent(new CustomEvent('held', { detail: { id: item.id, problem: body, status } }));
      return 'retry';
    }
    // Refused for good (no shots left, event over, not a photo): say why, keep nothing that cannot go.
    this.dispatchEvent(new CustomEvent('failed', { detail: { id: item.id, problem: body, status } }));
    return 'done';
  }

  async sendResumable(item) {
    const tus = { 'Tus-Resumable': '1.0.0' };
    let url = item.tusURL;
    let offset = 0;
    if (url) {
      const head = await fetch(url, { method: 'HEAD', headers: tus, cache: 'no-store' });
      if (head.status === 404) {
        url = null; // expired or ended: begin again
      } else if (!head.ok) {
        return this.settle(item, head.status, null, null);
      } else {
        offset = Number(head.headers.get('Upload-Offset'));
        if (head.headers.get('X-Photo-ID')) return this.finished(item, head.headers.get('X-Photo-ID'));
      }
    }
    if (!url) {
      const metadata = [['event', item.eventId], ['idempotencyKey', item.id], ['source', item.source], ['filename', item.blob.name || (item.type.startsWith('video/') ? 'video' : 'photo')]]
        .map(([key, value]) => `${key} ${btoa(unescape(encodeURIComponent(value)))}`).join(',');
      const created = await fetch('/api/v1/uploads', {
        method: 'POST', headers: { ...tus, 'Upload-Length': String(item.blob.size), 'Upload-Metadata': metadata, Accept: 'application/json' },
      });
      if (created.status === 507) return this.sendPlainInstead(item, null);
      if (created.status !== 201) return this.settle(item, created.status, await created.json().catch(() => null), null);
      url = created.headers.get('Location');
      await this.update({ ...item, tusURL: url });
    }
    if (item.firstLook && offset < item.blob.size && !item.type.startsWith('video/')) {
      // Before the last byte: the photo is then shown with it at once. Refused, the photo goes on without it.
      const sent = await fetch(`${url}/first-look`, { method: 'PUT', headers: { ...tus, 'Content-Type': 'image/jpeg' }, body: item.firstLook });
      if (sent.status === 422) await this.update({ ...item, tusURL: url, firstLook: null });
    }
    while (offset < item.blob.size) {
      const answer = await this.patch(url, offset, item.blob.slice(offset, offset + RESUMABLE_PIECE), item);
      // Another tab sending it (423), or the offset moved (409): ask where it stands on the next try.
      if ((answer.status === 409 && !answer.body?.type?.endsWith('/already-exists')) || answer.status === 423) return 'retry';
      if (answer.status === 507) return this.sendPlainInstead(item, url);
      if (answer.status !== 204) return this.settle(item, answer.status, answer.body, null);
      offset = Number(answer.headers.offset);
      if (answer.headers.photo) return this.finished(item, answer.headers.photo);
    }
    return 'retry';
  }

  /** No room to stage it in pieces right now: the upload is ended (its held shot given back) and the file goes
   * again at once in one request, which needs no room held between requests. */
  async sendPlainInstead(item, url) {
    if (url) await fetch(url, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } }).catch(() => null);
    await this.update({ ...item, tusURL: null, plain: true });
    return 'again';
  }

  patch(url, offset, piece, item) {
    return new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open('PATCH', url);
      request.setRequestHeader('Tus-Resumable', '1.0.0');
      request.setRequestHeader('Upload-Offset', String(offset));
      request.setRequestHeader('Content-Type', 'application/offset+octet-stream');
      request.setRequestHeader('Accept', 'application/json');
      request.upload.onprogress = (progress) => this.progress(item, offset + progress.loaded, item.blob.size);
      request.onerror = () => resolve({ status: 0 });
      request.ontimeout = () => resolve({ status: 0 });
      request.onload = () => resolve({
        status: request.status, body: parse(request.responseText),
        headers: { offset: request.getResponseHeader('Upload-Offset'), photo: request.getResponseHeader('X-Photo-ID') },
      });
      request.timeout = 120000;
      request.send(piece);
    });
  }

  async finished(item, photoId) {
    const answer = await fetch(`/api/v1/photos/${encodeURIComponent(photoId)}`, { headers: { Accept: 'application/json' } });
    return this.settle(item, 201, null, answer.ok ? await answer.json() : null);
  }

  async update(item) {
    const db = await this.database;
    await run(db, 'readwrite', (store) => store.put(item));
  }
}

/**
 * The phone's own small JPEG of a photo, which the server shows to everyone at once until its own renders exist:
 * upright, within the server's `side` and `bytes`, no metadata (a canvas writes none). Null where this browser cannot decode the file (HEIC outside Safari): the server's renders
 * then show it.
 */
async function makeFirstLook(blob, { side, bytes }) {
  if ((blob.type && !blob.type.startsWith('image/')) || typeof createImageBitmap !== 'function') return null;
  const bitmap = await createImageBitmap(blob, { imageOrientation: 'from-image' });
  const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  const context = canvas.getContext('2d');
  // Transparency on white, as the server flattens it: the two pictures are compared.
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  for (const quality of [0.8, 0.6, 0.4]) {
    const jpeg = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
    if (jpeg && jpeg.size <= bytes) return jpeg;
  }
  return null;
}

function parse(text) {
  try { return JSON.parse(text); } catch { return null; }
}

/**
 * Keeps the "N shots left" badge and the queue banner of an event page up to date.
 * Shots left = the server's count when the page loaded − photos sent since − photos still waiting.
 */
export function watchQueue(queue, config, t, onShotsChanged = () => {}) {
  const banner = document.getElementById('queue-status');
  const badge = document.getElementById('shots-left');
  let sentSinceLoad = 0;
  let waiting = 0;
  let offlineWaiting = false;
  const shotsLeft = () => (config.shotsLeft === undefined ? Infinity : Math.max(0, config.shotsLeft - sentSinceLoad - waiting));
  const render = () => {
    const left = shotsLeft();
    if (badge && left !== Infinity) {
      badge.querySelector('b').textContent = String(left);
      badge.dataset.shots = String(left);
      badge.setAttribute('aria-label', left === 1 ? t('shot_left_one') : t('shots_left', { n: left }));
    }
    if (banner) {
      banner.hidden = waiting === 0;
      banner.textContent = offlineWaiting || !navigator.onLine ? t('waiting_network', { n: waiting }) : t('uploading', { n: waiting });
    }
    onShotsChanged(left);
  };
  const refresh = async () => {
    waiting = (await queue.pending()).length;
    render();
  };
  queue.addEventListener('change', refresh);
  queue.addEventListener('waiting', () => { offlineWaiting = true; render(); });
  queue.addEventListener('uploaded', () => { sentSinceLoad += 1; offlineWaiting = false; refresh(); });
  queue.addEventListener('progress', () => { offlineWaiting = false; render(); });
  addEventListener('online', render);
  addEventListener('offline', render);
  refresh();
  return { shotsLeft, refresh };
}
