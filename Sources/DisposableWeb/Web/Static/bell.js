// The bell — my notifications from every event I am in, one live stream per tab. Opening it marks them read.
import { t, api, toast, formatDateTime } from './app.js';

const bell = document.getElementById('bell');
const count = document.getElementById('bell-count');
const dialog = document.getElementById('notifications-dialog');
const list = document.getElementById('notifications');
let unread = 0;

// The server words each notice in the reader's language and says which page it opens (`message`, `link`): the bell
// only shows them.
function text(notice) {
  return notice.message ?? notice.eventName ?? '';
}

function item(notice) {
  const li = document.createElement('li');
  li.dataset.id = notice.id;
  li.classList.toggle('unread', !notice.read);
  const link = document.createElement('a');
  link.href = notice.link ?? '/';
  const words = document.createElement('span');
  words.textContent = text(notice);
  const when = document.createElement('time');
  when.dateTime = notice.createdAt;
  when.textContent = formatDateTime(notice.createdAt);
  link.append(words, when);
  li.append(link);
  return li;
}

function showCount(value) {
  unread = value;
  count.hidden = value === 0;
  count.textContent = value > 99 ? '99+' : String(value);
  bell.setAttribute('aria-label', value ? t('bell_unread', { n: value }) : t('bell'));
}

async function markRead() {
  if (!unread) return;
  try { showCount((await api('/api/v1/notifications/read', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: '{}' })).unreadCount); } catch { /* read next time */ }
}

async function start() {
  let page;
  try { page = await api('/api/v1/notifications?limit=30'); } catch { return; }  // nobody signed in: no bell
  page.items.forEach((notice) => list.append(item(notice)));
  showCount(page.unreadCount);
  bell.hidden = false;
  bell.addEventListener('click', () => { dialog.showModal(); markRead(); });
  document.getElementById('notifications-close').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => list.querySelectorAll('li.unread').forEach((li) => li.classList.remove('unread')));
  const stream = new EventSource('/api/v1/notifications');
  stream.addEventListener('notification', (message) => {
    const notice = JSON.parse(message.data);
    if (list.querySelector(`li[data-id="${notice.id}"]`)) return;
    list.prepend(item(notice));
    if (dialog.open) markRead(); else toast(text(notice), 4000);
  });
  stream.addEventListener('unread', (message) => showCount(JSON.parse(message.data).unreadCount));
  addEventListener('pagehide', () => stream.close());
}

// The same notices on this phone with its pages closed (Web Push), offered to accounts from the bell —
// asked only when the person taps, never on arrival.
async function offerPush() {
  const offer = document.getElementById('push-offer');
  if (!offer || !('serviceWorker' in navigator) || !('PushManager' in window) || Notification.permission === 'denied') return;
  let settings;
  try { settings = await api('/api/v1/push'); } catch { return; }  // a guest: not offered
  const registration = await navigator.serviceWorker.getRegistration('/');
  if (await registration?.pushManager.getSubscription()) return;
  // A computer is not "this phone": no touch screen says which it is.
  const computer = !matchMedia('(any-pointer: coarse)').matches;
  if (computer) offer.querySelector('p').textContent = t('push_offer_computer');
  offer.hidden = false;
  const button = document.getElementById('push-on');
  const label = button.textContent;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      if (await Notification.requestPermission() !== 'granted') { toast(t('push_denied'), 6000); return; }
      // Said while the browser works on it; a browser without a reachable push service may never answer: 15 s,
      // then it is said.
      button.textContent = t('push_turning_on');
      button.setAttribute('aria-busy', 'true');
      const key = Uint8Array.from(atob(settings.publicKey.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const subscription = await Promise.race([
        (async () => {
          const worker = await navigator.serviceWorker.register('/sw.js');
          await navigator.serviceWorker.ready;
          return worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
        })(),
        new Promise((_, reject) => { setTimeout(() => reject(new Error('timeout')), 15000); }),
      ]);
      await api('/api/v1/push/subscriptions', {
        method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(subscription.toJSON()),
      });
      offer.hidden = true;
      toast(t(computer ? 'push_done_computer' : 'push_done'), 4000);
    } catch {
      toast(t('push_unavailable'), 8000);
    } finally {
      button.disabled = false;
      button.textContent = label;
      button.removeAttribute('aria-busy');
    }
  });
}

if (bell) start().then(offerPush);
