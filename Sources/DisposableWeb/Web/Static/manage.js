// The organizer's event page: sharing, the numbers and moderation.
import { t, api, eventConfig, toast, photoAlt, showPhoto, formatTime, nameWithFace, confirmAction, iconSVG, formatBytes } from './app.js';

const config = eventConfig();

const share = document.getElementById('share-button');
share.addEventListener('click', async () => {
  // The message already holds the link; phones that share files get the QR code as an image too.
  const data = { title: share.dataset.title, text: share.dataset.text };
  if (navigator.share) {
    try {
      const png = await fetch(`/api/v1/events/${config.id}/qr.png?size=600`).then((response) => response.blob());
      const file = new File([png], 'qr.png', { type: 'image/png' });
      if (navigator.canShare && navigator.canShare({ files: [file] })) data.files = [file];
    } catch { /* the text alone */ }
    try { await navigator.share(data); return; } catch (error) { if (error.name === 'AbortError') return; }
  }
  await navigator.clipboard.writeText(data.text);
  toast(t('invitation_copied'));
});

// A co-organizer's invitation link: to the phone's share sheet where there is one; Copy stays beside it.
for (const button of document.querySelectorAll('[data-share-url]')) {
  button.hidden = !navigator.share;
  button.addEventListener('click', () => {
    navigator.share({ title: button.dataset.shareTitle, url: button.dataset.shareUrl }).catch(() => {});
  });
}

async function loadStats() {
  const stats = await api(`/api/v1/events/${config.id}/stats`);
  const box = document.getElementById('stats');
  const numbers = document.createElement('p');
  numbers.className = 'numbers';
  const figures = [t('stats_photos', { n: stats.photos }), t('stats_guests', { n: stats.guests }), t('stats_storage', { size: formatBytes(stats.bytesStored) })];
  if (stats.guests > 0) figures.push(t('stats_guests_shot', { n: stats.guestsWhoShot, total: stats.guests }));
  if (stats.awaitingApproval > 0) figures.push(t('stats_awaiting', { n: stats.awaitingApproval }));
  figures.push(t('stats_zips', { n: stats.downloads.zips }), t('stats_originals', { n: stats.downloads.originals }));
  for (const text of figures) {
    const span = document.createElement('span');
    span.textContent = text;
    numbers.append(span);
  }
  box.replaceChildren(numbers);
  if (stats.photosPerGuest.length) {
    const heading = document.createElement('p');
    heading.textContent = t('stats_top');
    const list = document.createElement('ol');
    for (const shooter of stats.photosPerGuest.slice(0, 5)) {
      const item = document.createElement('li');
      item.textContent = `${shooter.name} — ${shooter.photos}`;
      list.append(item);
    }
    box.append(heading, list);
  }
  if (stats.uploadsPerHour.length) box.append(uploadsChart(stats.uploadsPerHour));
}

/** Photos per hour as small bars, the busiest hour full height; its numbers in the title for screen readers. */
function uploadsChart(hours) {
  const svgNS = 'http://www.w3.org/2000/svg';
  const width = 320, height = 90, gap = 2;
  const most = Math.max(...hours.map((hour) => hour.photos));
  // Bars no wider than a finger: an event of one hour is one bar, not a red wall.
  const bar = Math.min(28, (width - gap * (hours.length - 1)) / hours.length);
  const figure = document.createElement('figure');
  figure.className = 'uploads-chart';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height + 16}`);
  svg.setAttribute('role', 'img');
  const summary = hours.map((hour) => `${formatTime(hour.hour)}: ${hour.photos}`).join(', ');
  const title = document.createElementNS(svgNS, 'title');
  title.textContent = `${t('stats_over_time')} — ${summary}`;
  svg.append(title);
  hours.forEach((hour, index) => {
    const rect = document.createElementNS(svgNS, 'rect');
    const h = Math.max(2, (hour.photos / most) * height);
    rect.setAttribute('x', String(index * (bar + gap)));
    rect.setAttribute('y', String(height - h));
    rect.setAttribute('width', String(Math.max(1, bar)));
    rect.setAttribute('height', String(h));
    rect.setAttribute('rx', '2');
    rect.dataset.photos = String(hour.photos);
    svg.append(rect);
  });
  const last = hours.length - 1;
  const ends = last === 0 ? [[0, 'start']] : [[0, 'start'], [last, 'end']];
  for (const [index, anchor] of ends) {
    const label = document.createElementNS(svgNS, 'text');
    label.setAttribute('x', String(anchor === 'start' ? 0 : index * (bar + gap) + bar));
    label.setAttribute('y', String(height + 13));
    label.setAttribute('text-anchor', anchor);
    label.textContent = formatTime(hours[index].hour);
    svg.append(label);
  }
  const caption = document.createElement('figcaption');
  caption.textContent = t('stats_over_time');
  figure.append(caption, svg);
  return figure;
}

const grid = document.getElementById('moderation-grid');
const moreButton = document.getElementById('moderation-more');
let cursor = null;

async function loadPhotos() {
  const params = new URLSearchParams({ limit: '48' });
  if (cursor) params.set('cursor', cursor);
  const page = await api(`/api/v1/events/${config.id}/photos?${params}`);
  for (const photo of page.items) {
    const item = document.createElement('li');
    item.dataset.id = photo.id;
    // Who shot it, and the larger picture a tap away: moderating needs both. A note shows its words.
    let enlarge;
    if (photo.kind === 'note') {
      enlarge = document.createElement('p');
      enlarge.className = 'note-words moderation-note';
      enlarge.textContent = photo.text ?? '';
    } else {
      const image = document.createElement('img');
      image.alt = photoAlt(photo);
      image.loading = 'lazy';
      if (photo.status === 'ready') showPhoto(image, photo, 'thumbnail');
      enlarge = document.createElement('a');
      enlarge.href = photo.urls.preview;
      enlarge.target = '_blank';
      enlarge.rel = 'noopener';
      enlarge.append(image);
    }
    enlarge.classList.add('tile');
    const shooter = document.createElement('span');
    shooter.className = 'shooter';
    nameWithFace(shooter, photo, photo.shooter.name);
    // Approve and delete apart, in their own colours, under the picture rather than on it.
    const actions = document.createElement('div');
    actions.className = 'actions';
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'remove';
    remove.innerHTML = iconSVG('trash');
    remove.setAttribute('aria-label', `${t('delete')}: ${photoAlt(photo)}`);
    remove.title = t('delete');
    remove.addEventListener('click', async () => {
      if (!await confirmAction(t('confirm_delete_photo'), t('delete'), { danger: true })) return;
      try {
        await api(`/api/v1/photos/${photo.id}`, { method: 'DELETE' });
        item.remove();
        loadStats();
      } catch (error) { toast(error.message, 4000); }
    });
    actions.append(shooter);
    item.append(enlarge, actions);
    if (photo.approved === false) {
      // Waiting in the approval queue.
      item.classList.add('awaiting');
      const approve = document.createElement('button');
      approve.type = 'button';
      approve.className = 'approve';
      approve.textContent = t('approve');
      approve.setAttribute('aria-label', `${t('approve')}: ${photoAlt(photo)}`);
      approve.addEventListener('click', async () => {
        try {
          await api(`/api/v1/photos/${photo.id}/approve`, { method: 'POST' });
          item.classList.remove('awaiting');
          approve.remove();
          loadStats();
        } catch (error) { toast(error.message, 4000); }
      });
      item.append(approve);
    }
    actions.append(remove);
    grid.append(item);
  }
  cursor = page.nextCursor;
  moreButton.hidden = !cursor;
}
moreButton.addEventListener('click', loadPhotos);

loadStats().catch((error) => toast(error.message));
loadPhotos().catch((error) => toast(error.message));
