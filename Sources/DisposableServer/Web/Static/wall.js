// GAL-5: the live wall for a venue screen — the newest photos, large, arriving as they are taken.
import { api, eventConfig, photoAlt, showPhoto } from './app.js';

const config = eventConfig();
const wall = document.getElementById('wall');
const waiting = document.getElementById('wall-waiting');
const limit = 24;

function show(photo, fresh) {
  if (photo.status !== 'ready' || wall.querySelector(`[data-id="${photo.id}"]`)) return;
  const figure = document.createElement('figure');
  figure.dataset.id = photo.id;
  if (fresh) figure.className = 'fresh';
  const image = document.createElement('img');
  showPhoto(image, photo, 'preview');
  image.alt = photoAlt(photo);
  const caption = document.createElement('figcaption');
  caption.textContent = photo.shooter.name;
  figure.append(image, caption);
  fresh ? wall.prepend(figure) : wall.append(figure);
  while (wall.children.length > limit) wall.lastElementChild.remove();
  waiting.hidden = true;
}

const page = await api(`/api/v1/events/${config.id}/photos?limit=${limit}`);
page.items.forEach((photo) => show(photo, false));
const feed = new EventSource(`/api/v1/events/${config.id}/changes?lastEventId=${page.changeSeq}`);
feed.addEventListener('photo-ready', (message) => { const change = JSON.parse(message.data); if (change.photo) show(change.photo, true); });
feed.addEventListener('photo-removed', (message) => {
  const change = JSON.parse(message.data);
  wall.querySelector(`[data-id="${change.photo?.id || change.photoId}"]`)?.remove();
});
feed.addEventListener('event-revealed', () => location.reload());
