// UP-3: every shot goes into a queue kept in IndexedDB, so it survives a reload, a dead network or a closed tab.
// Each item has an id made here and sent as Idempotency-Key: retries can never make a second photo.
const DB_NAME = 'disposable';
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
  constructor(eventId) {
    super();
    this.eventId = eventId;
    this.database = openDatabase();
    this.running = false;
    this.retryTimer = null;
    this.attempts = 0;
    addEventListener('online', () => this.kick());
    this.kick();
  }

  async add(blob, source) {
    const item = { id: newId(), eventId: this.eventId, blob, type: blob.type || 'image/jpeg', source, createdAt: Date.now() };
    const db = await this.database;
    await run(db, 'readwrite', (store) => store.put(item));
    this.dispatchEvent(new CustomEvent('change'));
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
    return new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open('POST', `/api/v1/events/${encodeURIComponent(item.eventId)}/photos`);
      request.setRequestHeader('Content-Type', item.type);
      request.setRequestHeader('Idempotency-Key', item.id);
      request.setRequestHeader('X-Photo-Source', item.source);
      request.setRequestHeader('Accept', 'application/json');
      request.upload.onprogress = (progress) =>
        this.dispatchEvent(new CustomEvent('progress', { detail: { id: item.id, loaded: progress.loaded, total: progress.total } }));
      request.onerror = () => resolve('retry');
      request.ontimeout = () => resolve('retry');
      request.onload = () => {
        let body = null;
        try { body = JSON.parse(request.responseText); } catch { /* not JSON */ }
        if (request.status === 200 || request.status === 201) {
          this.dispatchEvent(new CustomEvent('uploaded', { detail: { id: item.id, photo: body } }));
          resolve('done');
        } else if (request.status === 409 && body?.existingId) {
          // The same photo is already in the event (sent from another tab, say): nothing is lost, no shot is used.
          this.dispatchEvent(new CustomEvent('duplicate', { detail: { id: item.id, existingId: body.existingId } }));
          resolve('done');
        } else if (request.status >= 500 || request.status === 408 || request.status === 429 || request.status === 0) {
          resolve('retry');
        } else if (request.status === 403 && body?.type?.endsWith('/quota-exceeded')) {
          // The organizer's storage is full (ADM-5): say so, and keep the photo until room is made.
          this.dispatchEvent(new CustomEvent('held', { detail: { id: item.id, problem: body, status: request.status } }));
          resolve('retry');
        } else {
          // Refused for good (no shots left, event over, not a photo): say why, keep nothing that cannot go.
          this.dispatchEvent(new CustomEvent('failed', { detail: { id: item.id, problem: body, status: request.status } }));
          resolve('done');
        }
      };
      request.timeout = 120000;
      request.send(item.blob);
    });
  }
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
