// The Story Board: friends' shared capsules of last month — enlarge, react (one emoji each), comment — and mine.
import { t, api, locale, formatDateTime, pageViewer } from './app.js';

const root = document.getElementById('board');
const list = document.getElementById('board-list');
const emojis = root.dataset.reactions.trim().split(' ');
const viewer = document.getElementById('viewer');
const image = document.getElementById('viewer-image');
let viewing = { photos: [], index: 0 };

function show(index) {
  viewing.index = (index + viewing.photos.length) % viewing.photos.length;
  image.src = viewing.photos[viewing.index].preview;
  document.getElementById('viewer-position').textContent = `${viewing.index + 1} / ${viewing.photos.length}`;
}
pageViewer(viewer, (step) => show(viewing.index + step));

function monthName(month) {
  const [year, number] = month.split('-').map(Number);
  const name = new Date(Date.UTC(year, number - 1, 15)).toLocaleDateString(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const json = (body) => ({ body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });

function card(capsule) {
  const li = element('li', 'card board-card');
  li.dataset.id = capsule.id;
  const head = element('div', 'board-head');
  const face = capsule.owner.avatarURL ? Object.assign(element('img', 'face'), { src: capsule.owner.avatarURL, alt: '' }) : element('span', 'face initial', capsule.owner.name.charAt(0));
  head.append(face, element('strong', '', capsule.owner.name), element('span', 'muted small', monthName(capsule.month)));
  li.append(head);
  if (capsule.quote) li.append(element('blockquote', 'capsule-quote', capsule.quote));
  if (capsule.song) li.append(element('p', 'capsule-song', `♪ ${capsule.song.title}${capsule.song.artist ? ` — ${capsule.song.artist}` : ''}`));
  if (capsule.clipURL) li.append(Object.assign(element('audio', 'capsule-clip'), { controls: true, preload: 'none', src: capsule.clipURL }));
  const grid = element('ul', 'grid board-photos');
  capsule.photos.forEach((photo, index) => {
    const item = element('li');
    const button = element('button', 'thumb');
    button.type = 'button';
    button.append(Object.assign(element('img'), { src: photo.thumbnail, alt: t('board_photo_alt', { name: capsule.owner.name, n: index + 1 }), loading: 'lazy' }));
    button.addEventListener('click', () => { viewing = { photos: capsule.photos, index }; show(index); viewer.showModal(); });
    item.append(button);
    grid.append(item);
  });
  li.append(grid);

  const bar = element('div', 'reactions');
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', t('board_react'));
  for (const emoji of emojis) {
    const count = capsule.reactions[emoji] ?? 0;
    const button = element('button', 'reaction', count ? `${emoji} ${count}` : emoji);
    button.type = 'button';
    button.dataset.emoji = emoji;
    button.setAttribute('aria-pressed', String(capsule.myReaction === emoji));
    button.addEventListener('click', async () => {
      const mine = capsule.myReaction === emoji;
      const updated = await api(`/api/v1/board/${capsule.id}/reaction`, mine ? { method: 'DELETE' } : { method: 'PUT', ...json({ emoji }) });
      li.replaceWith(card(updated));
    });
    bar.append(button);
  }
  li.append(bar);

  const comments = element('ul', 'comments board-comments');
  for (const comment of capsule.comments) {
    const item = element('li');
    const words = element('p');
    words.append(element('strong', '', comment.authorName), ` ${comment.text}`);
    item.append(words, Object.assign(element('time', 'muted small', formatDateTime(comment.createdAt)), { dateTime: comment.createdAt }));
    if (comment.canDelete) {
      const remove = element('button', 'link small', t('board_delete_comment'));
      remove.type = 'button';
      remove.addEventListener('click', async () => {
        await api(`/api/v1/board/${capsule.id}/comments/${comment.id}`, { method: 'DELETE' });
        li.replaceWith(card(await api(`/api/v1/board/${capsule.id}`)));
      });
      item.append(remove);
    }
    comments.append(item);
  }
  li.append(comments);
  const form = element('form', 'row board-comment');
  const input = Object.assign(element('input'), { name: 'text', maxLength: 500, required: true, placeholder: t('board_comment_placeholder') });
  input.setAttribute('aria-label', t('board_comment_placeholder'));
  const send = element('button', 'primary', t('board_comment_send'));
  send.type = 'submit';
  const error = element('p', 'error');
  error.hidden = true;
  form.append(input, send);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      li.replaceWith(card(await api(`/api/v1/board/${capsule.id}/comments`, { method: 'POST', ...json({ text: input.value }) })));
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  });
  li.append(form, error);
  return li;
}

async function load() {
  const board = await api('/api/v1/board');
  list.replaceChildren(...board.items.map(card));
  document.getElementById('board-empty').hidden = board.items.length > 0;
}

load();
