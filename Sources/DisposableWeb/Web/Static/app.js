// Shared by every page: strings, local dates, the offline banner, copy/share/confirm helpers, API calls.
const strings = JSON.parse(document.getElementById('strings')?.textContent || '{}');
export const locale = strings.locale || 'en-GB';

const plurals = new Intl.PluralRules(locale);

/** Where times are shown: the account's zone when the person chose one, else the browser's. */
export const timeZone = document.documentElement.dataset.timeZone || undefined;

/** A catalogue string with {placeholders} filled; `key_one` is used where the language says n is singular. */
export function t(key, values = {}) {
  const singular = typeof values.n === 'number' && plurals.select(values.n) === 'one' ? strings[`${key}_one`] : undefined;
  let text = singular ?? strings[key] ?? key;
  for (const [name, value] of Object.entries(values)) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

export function formatDateTime(date) {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(date));
}

export function formatTime(date) {
  return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone }).format(new Date(date));
}

/** A date in the reader's language and zone, with `Intl` options (`{ dateStyle: 'long' }`). */
export function formatDate(date, options) {
  return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(new Date(date));
}

/** When a library photo was taken: the clock where it was taken when its file said (a floating time stays as the
 * camera wrote it: no zone is invented), else the moment in the reader's zone. */
export function formatTaken(asset, options) {
  if (!asset.takenAtLocal) return formatDate(asset.takenAt, options);
  return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(new Date(`${asset.takenAtLocal}Z`));
}

/** "567.1 kB" / "567,1 ko": a size in the reader's language, its unit included. */
export function formatBytes(bytes) {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'];
  let value = bytes, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return new Intl.NumberFormat(locale, { style: 'unit', unit: units[unit], unitDisplay: 'short', maximumFractionDigits: unit ? 1 : 0 }).format(value);
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

// The shooter's account picture before their name, when they have one.
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

/** A full-screen viewer's paging: its ‹ › buttons, the arrow keys and a horizontal swipe call
 * `step(-1)` or `step(1)`; ✕ closes it. */
export function pageViewer(viewer, step) {
  document.getElementById('viewer-prev').addEventListener('click', () => step(-1));
  document.getElementById('viewer-next').addEventListener('click', () => step(1));
  const close = document.getElementById('viewer-close');
  close.addEventListener('click', () => viewer.close());
  // Focus stays in the open viewer however it pages (a control it was on may hide), and goes back to the tile
  // that opened it. The arrows page wherever the focus is, but not inside a text field or
  // a player, which use them.
  let opener = null;
  const show = viewer.showModal.bind(viewer);
  viewer.showModal = () => { opener = document.activeElement; show(); };
  viewer.addEventListener('close', () => { if (opener?.isConnected) opener.focus(); opener = null; });
  document.addEventListener('keydown', (event) => {
    if (!viewer.open || event.target.closest?.('input, textarea, video, audio') || event.altKey || event.metaKey || event.ctrlKey) return;
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    step(event.key === 'ArrowLeft' ? -1 : 1);
    requestAnimationFrame(() => { if (viewer.open && !viewer.contains(document.activeElement)) close.focus(); });
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

/** An icon of icons.svg, at the same version as this module (every static file shares the pages' version). */
export function iconSVG(name) {
  const own = new URL(import.meta.url);
  return `<svg class="icon" aria-hidden="true"><use href="${own.pathname.replace(/[^/]*$/, 'icons.svg')}${own.search}#${name}"></use></svg>`;
}

// What a screen reader says of a post: a drawing as a drawing, and its caption when the shooter wrote one.
export function photoAlt(photo) {
  const said = t(photo.source === 'drawing' ? 'drawing_by' : 'photo_by', { name: photo.shooter.name, time: formatTime(photo.takenAt) });
  return photo.caption ? `${said}. ${photo.caption}` : said;
}

// The server renders dates in the time zone it was told (the account's, else this cookie's); tell it the
// browser's and re-render in place.
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (zone) document.cookie = `disposable_tz=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax`;
for (const element of document.querySelectorAll('time[datetime]')) element.textContent = formatDateTime(element.dateTime);

// More contrast, chosen with the footer's switch and kept by this browser; until someone chooses, the device's
// setting decides.
const showContrast = (more) => {
  if (more) document.documentElement.dataset.contrast = 'more'; else delete document.documentElement.dataset.contrast;
  for (const button of document.querySelectorAll('.contrast-switch')) button.setAttribute('aria-pressed', String(more));
};
const chosenContrast = (() => { try { return localStorage.getItem('contrast'); } catch { return null; } })();
showContrast(chosenContrast ? chosenContrast === 'more' : matchMedia('(prefers-contrast: more)').matches);
document.addEventListener('click', (event) => {
  if (!event.target.closest('.contrast-switch')) return;
  const more = document.documentElement.dataset.contrast !== 'more';
  try { localStorage.setItem('contrast', more ? 'more' : 'normal'); } catch { /* private browsing: this page only */ }
  showContrast(more);
});

// A form sent back with errors: bring the first one into view and put the cursor in its field.
const firstError = document.querySelector('.field-error, p.error[role=alert]');
if (firstError) {
  const field = document.querySelector('[aria-invalid="true"]') ?? firstError.closest('form')?.querySelector('input:not([type=hidden]), textarea');
  (field ?? firstError).scrollIntoView({ block: 'center' });
  field?.focus({ preventScroll: true });
}

// Crash reports: an error a page meets reaches the admin (our server only; the path without its query, which may
// hold a key). At most five a page, so a failing loop does not flood anyone.
let errorsReported = 0;
const reportError = (message, stack) => {
  if (errorsReported++ >= 5 || !message) return;
  fetch('/api/v1/client-errors', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, keepalive: true,
    body: JSON.stringify({ message: String(message).slice(0, 1000), page: location.pathname, stack: stack ? String(stack).slice(0, 4000) : undefined }),
  }).catch(() => {});
};
addEventListener('error', (event) => reportError(event.message, event.error?.stack));
addEventListener('unhandledrejection', (event) => reportError(event.reason?.message ?? String(event.reason), event.reason?.stack));

// Say so when the network is gone.
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
    // Said with what was copied: "Join link copied", not a bare "Copied!".
    toast(copy.dataset.copied || t('copied'));
  }
});

// Every dialog: Cancel is a plain button, so Enter in a field submits the form's primary
// action; Escape leaves "cancel" as the answer (a dialog keeps its last answer otherwise, and would save again).
document.addEventListener('click', (event) => {
  const cancel = event.target.closest('dialog button[value=cancel]');
  if (cancel) cancel.closest('dialog').close('cancel');
});
document.addEventListener('cancel', (event) => {
  if (event.target instanceof HTMLDialogElement) event.target.returnValue = 'cancel';
}, true);

/** The app's own confirmation: resolves true when the person chose `action`. */
export function confirmAction(text, action, { danger = false } = {}) {
  const dialog = document.createElement('dialog');
  dialog.className = 'confirm';
  dialog.setAttribute('aria-label', text);
  const form = document.createElement('form');
  form.method = 'dialog';
  const message = document.createElement('p');
  message.textContent = text;
  const row = document.createElement('div');
  row.className = 'row';
  const cancel = Object.assign(document.createElement('button'), { type: 'button', value: 'cancel', className: 'ghost', textContent: t('cancel') });
  const yes = Object.assign(document.createElement('button'), { value: 'yes', className: danger ? 'danger' : 'primary', textContent: action });
  row.append(cancel, yes);
  form.append(message, row);
  dialog.append(form);
  document.body.append(dialog);
  dialog.showModal();
  yes.focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => { resolve(dialog.returnValue === 'yes'); dialog.remove(); });
  });
}

// A form that asks first: the question in the app's dialog, answered with the form's own button's words.
document.addEventListener('submit', async (event) => {
  const form = event.target.closest('form[data-confirm]');
  if (!form || form.dataset.confirmed) return;
  event.preventDefault();
  const button = event.submitter ?? form.querySelector('button:not([type=button])');
  const answer = await confirmAction(form.dataset.confirm, button?.textContent.trim() || t('confirm_yes'),
    { danger: button?.classList.contains('danger') });
  if (!answer) return;
  form.dataset.confirmed = 'true';
  form.requestSubmit(button);
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
