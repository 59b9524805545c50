// The service worker. Photos and videos shared to the installed app (the manifest's share_target) are kept here
// for the library page, which adds them through its upload queue: the share's POST never reaches the server.
const SHARED = 'disposable-shared';
// Pages opened before the worker existed are its own at once (a share from them must not reach the server).
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'POST' || url.origin !== self.location.origin || url.pathname !== '/library/shared') return;
  event.respondWith((async () => {
    const form = await event.request.formData();
    const files = form.getAll('photos').filter((file) => file instanceof File).slice(0, 500);
    const cache = await caches.open(SHARED);
    const stamp = Date.now();
    await Promise.all(files.map((file, index) => cache.put(
      `/shared/${stamp}-${index}`,
      new Response(file, { headers: { 'Content-Type': file.type || 'application/octet-stream', 'X-File-Name': encodeURIComponent(file.name) } }))));
    return Response.redirect('/library?shared', 303);
  })());
});

// A notice sent to this browser (Web Push, already worded by the server in the
// reader's language) is shown even with every page closed; a tap opens its page, in a tab of ours if one is open.
self.addEventListener('push', (event) => {
  let notice = {};
  try { notice = event.data ? event.data.json() : {}; } catch { notice = { body: event.data?.text() ?? '' }; }
  event.waitUntil(self.registration.showNotification(notice.title || 'Disposable', {
    body: notice.body || '', tag: notice.tag, icon: '/static/icon192.png', badge: '/static/icon192.png', data: { url: notice.url || '/' },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || '/', self.location.origin);
  // Only our own pages: a notice never sends anyone elsewhere.
  if (url.origin !== self.location.origin) return;
  event.waitUntil((async () => {
    const tabs = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const ours = tabs.find((tab) => new URL(tab.url).origin === url.origin);
    if (ours) { await ours.focus(); return ours.navigate(url.href); }
    return self.clients.openWindow(url.href);
  })());
});
