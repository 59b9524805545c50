// Moments — note one, this year's count and list, a past year's recap (?year=), in the owner's time zone.
import { t, api, formatDateTime, locale, toast } from './app.js';

const root = document.getElementById('moments');
const form = document.getElementById('moment-form');
const text = document.getElementById('moment-text');
const left = document.getElementById('moment-left');
const list = document.getElementById('moment-list');
const asked = Number(new URLSearchParams(location.search).get('year')) || null;
const json = { 'Content-Type': 'application/json', Accept: 'application/json' };


function item(moment) {
  const li = document.createElement('li');
  const words = document.createElement('p');
  words.textContent = moment.text;
  const time = document.createElement('time');
  time.dateTime = moment.createdAt;
  time.textContent = formatDateTime(moment.createdAt);
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'link small';
  remove.textContent = t('moments_delete');
  remove.addEventListener('click', async () => {
    try {
      await api(`/api/v1/moments/${encodeURIComponent(moment.id)}`, { method: 'DELETE' });
      load();
    } catch (error) { toast(error.message); }
  });
  li.append(words, time, remove);
  return li;
}

async function load() {
  const page = await api(`/api/v1/moments${asked ? `?year=${asked}` : ''}`);
  document.getElementById('moment-count').textContent = t('moments_count', { n: page.count, year: page.year });
  list.replaceChildren(...page.items.map(item));
  form.hidden = asked !== null && asked !== new Date().getFullYear();
  const recap = await api(`/api/v1/moments/recap?year=${page.year}`);
  const box = document.getElementById('moment-recap');
  box.hidden = !recap.ready || recap.count === 0;
  if (!box.hidden) {
    document.getElementById('moment-recap-title').textContent = t('moments_recap', { year: recap.year, n: recap.count });
    const months = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' });
    document.getElementById('moment-months').replaceChildren(...recap.months.map((month) => {
      const li = document.createElement('li');
      li.textContent = `${months.format(new Date(`${month.month}-15T12:00:00Z`))} · ${month.count}`;
      return li;
    }));
  }
  const years = document.getElementById('moment-years');
  years.parentElement.hidden = page.years.length < 2;
  years.replaceChildren(...page.years.filter((year) => year !== page.year).map((year) => {
    const link = document.createElement('a');
    link.href = `/moments?year=${year}`;
    link.textContent = t('moments_year', { year });
    return link;
  }));
}

function count() {
  left.textContent = t('moments_left', { n: 280 - text.value.length });
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    await api('/api/v1/moments', { method: 'POST', headers: json, body: JSON.stringify({ text: text.value }) });
    text.value = '';
    count();
    load();
  } catch (error) { toast(error.message); }
});
text.addEventListener('input', count);

async function start() {
  // Months and years are counted where the person is: the browser's zone, once, until they change it.
  if (!root.dataset.zoneSet) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone) await api('/api/v1/me', { method: 'PATCH', headers: json, body: JSON.stringify({ timeZone: zone }) }).catch(() => {});
  }
  count();
  load().catch((error) => toast(error.message));
}

start();
