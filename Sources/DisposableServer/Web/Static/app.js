// Shared by every page: strings, local dates, the offline banner, copy/share/confirm helpers, API calls.
const strings = JSON.parse(document.getElementById('strings')?.textContent || '{}');
export const locale = strings.locale || 'en-GB';

const plurals = new Intl.PluralRules(locale);

/** A catalogue string with {placeholders} filled; `key_one` is used where the language says n is singular. */
export function t(key, values = {}) {
  const singular = typeof values.n === 'number' && plurals.select(values.n) === 'one' ? strings[`${key}_one`] : undefined;
  let text = singular ?? strings[key] ?? key;
  for (const [name, value] of Object.entries(values)) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

export function formatDateTime(date) {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(date));
}

export function formatTime(date) {
  return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(new Date(date));
}

export function eventConfig() {
  const element = document.getElementById('event-config');
  return element ? JSON.parse(element.textContent) : null;
}

/** What a refusal means, in the reader's language: the server's problem type names a sentence of the catalogue
 * (the server's own sentence is for developers, and in English). */
export function problemText(problem, status) {
  const slug = typeof problem?.type === 'string' ? problem.type.split('/').pop() : '';
  return strings[`problem_${slug}`] ?? t('problem_other', { status });
}

/** A JSON API call with the session cookie; throws an Error carrying the problem's sentence. */
export async function api(path, options = {}) {
  const response = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' }, ...options });
  if (response.status === 204) return null;
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(problemText(body, response.status));
    error.status = response.status;
    error.problem = body;
    throw error;
  }
  return body;
}

export function toast(text, ms = 2500) {
  const element = document.createElement('div');
  element.className = 'toast';
  element.setAttribute('role', 'status');
  element.textContent = text;
  document.body.append(element);
  setTimeout(() => element.remove(), ms);
}

// SOC-5: the shooter's account picture before their name, when they have one.
export function nameWithFace(element, photo, text) {
  element.textContent = '';
  if (photo.shooter.avatarURL) {
    const face = document.createElement('img');
    face.className = 'face';
    face.src = photo.shooter.avatarURL;
    face.alt = '';
    element.append(face);
  }
  element.append(text);
}

/** A full-screen viewer's paging (GAL-4, LIB-1): its ‹ › buttons, the arrow keys and a horizontal swipe call
 * `step(-1)` or `step(1)`; ✕ closes it. */
export function pageViewer(viewer, step) {
  document.getElementById('viewer-prev').addEventListener('click', () => step(-1));
  document.getElementById('viewer-next').addEventListener('click', () => step(1));
  document.getElementById('viewer-close').addEventListener('click', () => viewer.close());
  viewer.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowLeft') step(-1);
    if (event.key === 'ArrowRight') step(1);
  });
  let touchX = null;
  viewer.addEventListener('pointerdown', (event) => { touchX = event.clientX; });
  viewer.addEventListener('pointerup', (event) => {
    if (touchX === null) return;
    const dx = event.clientX - touchX;
    touchX = null;
    if (Math.abs(dx) > 50) step(dx < 0 ? 1 : -1);
  });
}

export function photoAlt(photo) {
  return t('photo_by', { name: photo.shooter.name, time: formatTime(photo.takenAt) });
}

// The server renders dates in the time zone it was told; tell it ours and re-render in place (UI-1).
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (zone) document.cookie = `disposable_tz=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax`;
for (const element of document.querySelectorAll('time[datetime]')) element.textContent = formatDateTime(element.dateTime);

// A form sent back with errors: bring the first one into view and put the cursor in its field (issue 20, item 6).
const firstError = document.querySelector('.field-error, p.error[role=alert]');
if (firstError) {
  const field = document.querySelector('[aria-invalid="true"]') ?? firstError.closest('form')?.querySelector('input:not([type=hidden]), textarea');
  (field ?? firstError).scrollIntoView({ block: 'center' });
  field?.focus({ preventScroll: true });
}

// SUP-5: say so when the network is gone.
const offline = document.getElementById('offline');
const updateOnline = () => { if (offline) offline.hidden = navigator.onLine; };
addEventListener('online', updateOnline);
addEventListener('offline', updateOnline);
updateOnline();

document.addEventListener('click', async (event) => {
  const copy = event.target.closest('[data-copy]');
  if (copy) {
    const field = document.querySelector(copy.dataset.copy);
    try { await navigator.clipboard.writeText(field.value); } catch { field.select(); document.execCommand('copy'); }
    toast(t('copied'));
  }
});

document.addEventListener('submit', (event) => {
  const form = event.target.closest('form[data-confirm]');
  if (form && !confirm(form.dataset.confirm)) event.preventDefault();
});

// Thumbnail and preview links are signed and expire (12–24 h); a page left open longer asks for fresh ones once.
export function showPhoto(image, photo, kind) {
  let renewed = false;
  image.onerror = async () => {
    if (renewed) return;
    renewed = true;
    try { image.src = (await api(`/api/v1/photos/${photo.id}`)).urls[kind]; } catch { /* deleted: stays broken */ }
  };
  image.src = photo.urls[kind];
}
