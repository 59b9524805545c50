// The service worker. A notice sent to this browser (Web Push, already worded by the server in the
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
