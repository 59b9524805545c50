// The guestbook in the gallery: note tiles, likes and comments under the open post,
// writing a note, drawing with a finger. gallery.js owns the grid and the viewer; this owns what people say.
import { t, api, toast, formatDateTime, problemText } from './app.js';

/** A note's tile: its words on a card, clipped; the viewer shows them whole. */
export function noteTile(button, photo) {
  button.classList.add('note-tile');
  const words = document.createElement('span');
  words.className = 'note-words';
  words.textContent = photo.text ?? '';
  button.append(words);
  button.setAttribute('aria-label', t('note_by', { name: photo.shooter.name }));
}

/** The little "♥ 3 · 💬 2" a tile wears once people react. */
export function reactionBadge(photo) {
  if (!photo.likeCount && !photo.commentCount) return null;
  const badge = document.createElement('span');
  badge.className = 'reactions';
  const parts = [];
  if (photo.likeCount) parts.push(`♥ ${photo.likeCount}`);
  if (photo.commentCount) parts.push(`💬 ${photo.commentCount}`);
  badge.textContent = parts.join(' · ');
  badge.setAttribute('aria-label', t('reactions', { likes: photo.likeCount, comments: photo.commentCount }));
  return badge;
}

/** A person as the feed shows them: their picture, or the initial of their name. */
export function face(person) {
  if (person.avatarURL) {
    const image = document.createElement('img');
    image.className = 'face';
    image.src = person.avatarURL;
    image.alt = '';
    return image;
  }
  const initial = document.createElement('span');
  initial.className = 'face initial';
  initial.setAttribute('aria-hidden', 'true');
  initial.textContent = [...(person.name || '?').trim()][0]?.toUpperCase() ?? '?';
  return initial;
}

/**
 * Likes and comments of the post open in the viewer. `photos` is the gallery's id → post map, `changed(photo)`
 * tells the gallery a post's counts moved (to redraw its tile).
 */
export function socialPanel({ config, photos, changed }) {
  const likeButton = document.getElementById('like-button');
  const likeCount = document.getElementById('like-count');
  const commentsButton = document.getElementById('comments-button');
  const commentsDialog = document.getElementById('comments-dialog');
  const list = document.getElementById('comments');
  const form = document.getElementById('comment-form');
  const input = document.getElementById('comment-input');
  let current = null;

  function showCounts(photo) {
    likeButton.setAttribute('aria-pressed', String(!!photo.likedByMe));
    likeCount.textContent = String(photo.likeCount ?? 0);
    likeButton.setAttribute('aria-label', t(photo.likedByMe ? 'unlike' : 'like', { n: photo.likeCount ?? 0 }));
    commentsButton.textContent = t('comments_count', { n: photo.commentCount ?? 0 });
  }

  function commentItem(comment) {
    const item = document.createElement('li');
    item.dataset.id = comment.id;
    item.append(face(comment.author));
    const body = document.createElement('div');
    const who = document.createElement('strong');
    who.textContent = comment.author.name;
    const when = document.createElement('time');
    when.dateTime = comment.createdAt;
    when.textContent = formatDateTime(comment.createdAt);
    const words = document.createElement('p');
    words.textContent = comment.text;
    body.append(who, ' ', when, words);
    item.append(body);
    if (comment.mine || config.role === 'organizer') {
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'ghost small';
      remove.textContent = t('comment_delete');
      remove.addEventListener('click', async () => {
        try {
          await api(`/api/v1/comments/${comment.id}`, { method: 'DELETE' });
          item.remove();
        } catch (error) { toast(error.message, 4000); }
      });
      item.append(remove);
    }
    return item;
  }

  async function loadComments(photo) {
    list.replaceChildren();
    let cursor = null;
    do {
      const params = new URLSearchParams({ limit: '100' });
      if (cursor) params.set('cursor', cursor);
      const page = await api(`/api/v1/photos/${photo.id}/comments?${params}`);
      if (current?.id !== photo.id) return;
      page.items.forEach((comment) => list.append(commentItem(comment)));
      cursor = page.nextCursor;
    } while (cursor);
    list.dataset.empty = String(!list.children.length);
  }

  likeButton.addEventListener('click', async () => {
    if (!current) return;
    const photo = current;
    try {
      const state = await api(`/api/v1/photos/${photo.id}/like`, { method: photo.likedByMe ? 'DELETE' : 'PUT' });
      Object.assign(photo, { likeCount: state.likeCount, likedByMe: state.likedByMe });
      changed(photo);
      if (current === photo) showCounts(photo);
    } catch (error) { toast(error.message, 4000); }
  });
  commentsButton.addEventListener('click', () => {
    if (!current) return;
    commentsDialog.showModal();
    loadComments(current).catch((error) => toast(error.message, 4000));
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || !current) return;
    const photo = current;
    try {
      const comment = await api(`/api/v1/photos/${photo.id}/comments`, {
        method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, body: JSON.stringify({ text }),
      });
      input.value = '';
      if (!list.querySelector(`li[data-id="${comment.id}"]`)) list.append(commentItem(comment));
      list.dataset.empty = 'false';
    } catch (error) { toast(error.message, 4000); }
  });
  document.getElementById('comments-close').addEventListener('click', () => commentsDialog.close());

  return {
    show(photo) { current = photo; showCounts(photo); },
    hide() { current = null; if (commentsDialog.open) commentsDialog.close(); },
    /** A change from the live feed: counts for every tile, the comment itself for the open post. */
    apply(kind, change) {
      const photo = change.photoId && photos.get(change.photoId);
      if (!photo) return;
      if (kind === 'likes-changed') photo.likeCount = change.likeCount;
      if (kind === 'comment-added' || kind === 'comment-removed') photo.commentCount = change.commentCount;
      changed(photo);
      if (current?.id !== photo.id) return;
      showCounts(photo);
      if (kind === 'comment-added' && change.comment && commentsDialog.open && !list.querySelector(`li[data-id="${change.comment.id}"]`)) {
        list.append(commentItem(change.comment));
        list.dataset.empty = 'false';
      }
      if (kind === 'comment-removed') list.querySelector(`li[data-id="${change.commentId}"]`)?.remove();
    },
  };
}

/** Writing a note and drawing, for members of a live event; `posted(photo)` puts the new post in the grid. */
export function composers({ config, posted }) {
  const noteDialog = document.getElementById('note-dialog');
  const noteInput = document.getElementById('note-input');
  document.getElementById('write-note')?.addEventListener('click', () => { noteDialog.showModal(); noteInput.focus(); });
  noteDialog?.addEventListener('close', async () => {
    if (noteDialog.returnValue !== 'post' || !noteInput.value.trim()) return;
    try {
      const note = await api(`/api/v1/events/${config.id}/notes`, {
        method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: noteInput.value }),
      });
      noteInput.value = '';
      posted(note);
      toast(t('note_posted'));
    } catch (error) { toast(error.message, 4000); }
  });
  drawingPad({ config, posted });
}

/** A finger-drawing canvas: a few colours, a thicker or thinner line, undo; saved as a PNG post. */
function drawingPad({ config, posted }) {
  const dialog = document.getElementById('drawing-dialog');
  const canvas = document.getElementById('drawing-canvas');
  if (!dialog || !canvas) return;
  const context = canvas.getContext('2d');
  const strokes = [];
  let colour = '#1d1d1f';
  let stroke = null;

  function paint() {
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.lineCap = 'round';
    context.lineJoin = 'round';
    for (const line of strokes) {
      context.strokeStyle = line.colour;
      context.lineWidth = line.width;
      context.beginPath();
      line.points.forEach(([x, y], index) => (index ? context.lineTo(x, y) : context.moveTo(x, y)));
      if (line.points.length === 1) context.lineTo(line.points[0][0] + 0.1, line.points[0][1]);
      context.stroke();
    }
  }
  function point(event) {
    const box = canvas.getBoundingClientRect();
    return [((event.clientX - box.left) / box.width) * canvas.width, ((event.clientY - box.top) / box.height) * canvas.height];
  }
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    stroke = { colour, width: 12, points: [point(event)] };
    strokes.push(stroke);
    paint();
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!stroke) return;
    stroke.points.push(point(event));
    paint();
  });
  const end = () => { stroke = null; };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  dialog.querySelectorAll('[data-colour]').forEach((swatch) => swatch.addEventListener('click', () => {
    colour = swatch.dataset.colour;
    dialog.querySelectorAll('[data-colour]').forEach((other) => other.setAttribute('aria-pressed', String(other === swatch)));
  }));
  document.getElementById('drawing-undo').addEventListener('click', () => { strokes.pop(); paint(); });
  document.getElementById('draw')?.addEventListener('click', () => { strokes.length = 0; paint(); dialog.showModal(); });
  dialog.addEventListener('close', async () => {
    if (dialog.returnValue !== 'post' || !strokes.length) return;
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    try {
      const response = await fetch(`/api/v1/events/${config.id}/photos`, {
        method: 'POST', credentials: 'same-origin', body: blob,
        headers: { Accept: 'application/json', 'Content-Type': 'image/png', 'X-Photo-Source': 'drawing' },
      });
      const body = await response.json().catch(() => null);
      if (!response.ok) throw new Error(problemText(body, response.status));
      posted(body);
      toast(t('drawing_posted'));
    } catch (error) { toast(error.message, 4000); }
  });
}
