// What I shot at every event I am still in, newest first, grouped by event; each photo, or a whole event, saved
// to my library in one tap.
import { t, api, toast, photoAlt, showPhoto } from './app.js';

const box = document.getElementById('event-shots');
const more = document.getElementById('more-shots');
let cursor = null;

function group(event) {
  let section = box.querySelector(`section[data-event="${CSS.escape(event.id)}"]`);
  if (section) return section.querySelector('ul');
  section = document.createElement('section');
  section.className = 'card event-shots';
  section.dataset.event = event.id;
  const head = document.createElement('div');
  head.className = 'row wrap event-shots-head';
  const title = document.createElement('h2');
  const link = document.createElement('a');
  link.href = `/e/${event.code}`;
  link.textContent = event.name;
  title.append(link);
  const all = document.createElement('button');
  all.type = 'button';
  all.className = 'ghost save-all';
  all.textContent = t('save_all_to_library');
  all.addEventListener('click', () => saveAll(section, all));
  head.append(title, all);
  const list = document.createElement('ul');
  list.className = 'grid';
  section.append(head, list);
  box.append(section);
  return list;
}

async function save(photoID) {
  await api(`/api/v1/photos/${photoID}/save-to-library`, { method: 'POST' });
}

async function saveAll(section, button) {
  button.disabled = true;
  const ids = [...section.querySelectorAll('li[data-photo]')].map((item) => item.dataset.photo);
  let saved = 0;
  for (const id of ids) {
    try { await save(id); saved += 1; markSaved(section.querySelector(`li[data-photo="${CSS.escape(id)}"]`)); } catch (error) { toast(error.message); }
  }
  button.disabled = false;
  toast(t('saved_n_to_library', { n: saved }));
}

function markSaved(item) {
  const button = item?.querySelector('button');
  if (!button) return;
  button.textContent = t('kept');
  button.disabled = true;
}

function tile(photo) {
  const item = document.createElement('li');
  item.className = 'tile';
  item.dataset.photo = photo.id;
  const image = document.createElement('img');
  image.loading = 'lazy';
  image.alt = photoAlt(photo);
  showPhoto(image, photo, 'thumbnail');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'ghost small-button save-one';
  button.textContent = t('keep');
  button.setAttribute('aria-label', `${t('save_to_library')}: ${image.alt}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try { await save(photo.id); markSaved(item); toast(t('saved_to_library')); } catch (error) { button.disabled = false; toast(error.message); }
  });
  item.append(image, button);
  return item;
}

async function load() {
  more.hidden = true;
  const page = await api(`/api/v1/me/photos?limit=60${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  const events = new Map(page.events.map((event) => [event.id, event]));
  for (const photo of page.items) group(events.get(photo.eventId)).append(tile(photo));
  cursor = page.nextCursor;
  more.hidden = !cursor;
  document.getElementById('empty').hidden = box.children.length > 0;
}

more.addEventListener('click', () => load().catch((error) => toast(error.message)));
load().catch((error) => toast(error.message));
