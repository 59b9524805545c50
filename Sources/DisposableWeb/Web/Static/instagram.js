// Instagram's "Download your information" export (JSON format) into my photos, read in the browser. The
// ZIP can be gigabytes: only its directory, its lists and then one file at a time are read (File.slice), and each
// photo or video goes up through the library's upload queue with its post's date and caption. The same rules as
// `disposable import --instagram`: two layouts (your_instagram_activity/media/…, older content/…), under a folder
// named after the account or not; each entry's `uri` is relative to the export's root.

const LIST = /(^|\/)(your_instagram_activity\/media|content)\/(posts_[0-9]+|stories|reels|igtv_videos)\.json$/;
const KEPT = /\.(jpe?g|png|gif|webp|heic|heif|avif|mp4|mov|m4v|webm)$/i;
const TYPES = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic',
  heif: 'image/heif', avif: 'image/avif', mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm' };

/** The ZIP's files: name → where its bytes are (ZIP64 included: exports of many years pass 4 GB). */
async function directory(file) {
  const tailSize = Math.min(file.size, 65557);
  const tail = new DataView(await file.slice(file.size - tailSize).arrayBuffer());
  let end = -1;
  for (let i = tail.byteLength - 22; i >= 0; i -= 1) if (tail.getUint32(i, true) === 0x06054b50) { end = i; break; }
  if (end < 0) throw new Error('not a zip');
  let count = tail.getUint16(end + 10, true);
  let size = tail.getUint32(end + 12, true);
  let offset = tail.getUint32(end + 16, true);
  if (end >= 20 && tail.getUint32(end - 20, true) === 0x07064b50) {
    const at = Number(tail.getBigUint64(end - 12, true));
    const record = new DataView(await file.slice(at, at + 56).arrayBuffer());
    count = Number(record.getBigUint64(32, true));
    size = Number(record.getBigUint64(40, true));
    offset = Number(record.getBigUint64(48, true));
  }
  const list = new DataView(await file.slice(offset, offset + size).arrayBuffer());
  const names = new TextDecoder();
  const entries = new Map();
  for (let p = 0, n = 0; n < count && p + 46 <= list.byteLength && list.getUint32(p, true) === 0x02014b50; n += 1) {
    const nameLength = list.getUint16(p + 28, true);
    const extraLength = list.getUint16(p + 30, true);
    const entry = { method: list.getUint16(p + 10, true), compressed: list.getUint32(p + 20, true), size: list.getUint32(p + 24, true),
      local: list.getUint32(p + 42, true) };
    const name = names.decode(new Uint8Array(list.buffer, p + 46, nameLength));
    // ZIP64's sizes and offset, in the order of the fields that overflowed.
    for (let e = p + 46 + nameLength; e + 4 <= p + 46 + nameLength + extraLength; e += 4 + list.getUint16(e + 2, true)) {
      if (list.getUint16(e, true) !== 1) continue;
      let q = e + 4;
      if (entry.size === 0xffffffff) { entry.size = Number(list.getBigUint64(q, true)); q += 8; }
      if (entry.compressed === 0xffffffff) { entry.compressed = Number(list.getBigUint64(q, true)); q += 8; }
      if (entry.local === 0xffffffff) entry.local = Number(list.getBigUint64(q, true));
    }
    if (!name.endsWith('/')) entries.set(name, entry);
    p += 46 + nameLength + extraLength + list.getUint16(p + 32, true);
  }
  return entries;
}

/** Passes bytes on up to `limit`, and fails past it: an entry inflating past the size it declares (a ZIP bomb)
 * stops there instead of filling the phone's memory. */
function atMost(limit) {
  let count = 0;
  return new TransformStream({
    transform(chunk, controller) {
      count += chunk.byteLength;
      if (count > limit) throw new Error('inflates past its declared size');
      controller.enqueue(chunk);
    },
  });
}

/** Instagram's lists are a few megabytes: one that declares more is not read (nor parsed) at all. */
const LIST_BYTES = 32 * 1024 * 1024;

/** One file of the ZIP, inflated (never past the size the ZIP declares for it, and not at all past `limit`). */
async function read(file, entry, type, limit = Infinity) {
  if (entry.size > limit) throw new Error('too-large');
  const head = new DataView(await file.slice(entry.local, entry.local + 30).arrayBuffer());
  const start = entry.local + 30 + head.getUint16(26, true) + head.getUint16(28, true);
  const raw = file.slice(start, start + entry.compressed);
  if (entry.method === 0) return new Blob([raw], { type });
  if (entry.method !== 8) throw new Error('unsupported compression');
  const inflated = await new Response(raw.stream().pipeThrough(new DecompressionStream('deflate-raw')).pipeThrough(atMost(entry.size))).blob();
  return new Blob([inflated], { type });
}

/** Instagram writes each byte of a text's UTF-8 as a character of its own: read back, the bytes make the text. */
export function readable(text) {
  if ([...text].some((c) => c.codePointAt(0) > 0xff)) return text;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(text, (c) => c.charCodeAt(0)));
  } catch {
    return text;
  }
}

/** Each object with a `uri` in a list, with its own title and time or, when empty, those of the post around it. */
function entries(node, caption, time, found) {
  if (Array.isArray(node)) { for (const item of node) entries(item, caption, time, found); return found; }
  if (!node || typeof node !== 'object') return found;
  const title = (typeof node.title === 'string' && readable(node.title).trim()) || caption;
  const created = typeof node.creation_timestamp === 'number' ? node.creation_timestamp : time;
  if (typeof node.uri === 'string' && !node.uri.startsWith('http')) found.push({ uri: node.uri, caption: title, time: created });
  else for (const key of Object.keys(node).sort()) entries(node[key], title, created, found);
  return found;
}

/**
 * What the export's lists name (`lists`: [name, parsed JSON], any order) among the export's files (`names`): each
 * photo or video once, the first list by name giving its caption, with its post's time; and the files named but
 * missing. The CLI reads the same way (`InstagramExport`): both are run on Tests/fixtures/instagram.
 */
export function mediaOf(lists, names) {
  const seen = new Set();
  const media = [];
  const missing = [];
  for (const [list, json] of [...lists].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const root = list.slice(0, list.search(/(your_instagram_activity|content)\/[^/]+(\/[^/]+)?\.json$/));
    for (const entry of entries(json, null, null, [])) {
      const path = root + entry.uri.replace(/^\/+/, '');
      if (seen.has(path)) continue;
      seen.add(path);
      if (!names.has(path)) missing.push(path); else if (KEPT.test(path)) media.push({ path, caption: entry.caption, time: entry.time });
    }
  }
  return { media, missing };
}

/**
 * Reads the export and hands each photo or video to `add(file, caption)`, a File named as in the export whose date
 * is its post's; one larger than `maxBytes` (the server's limit) is left out unread. Resolves to how many were handed
 * over, how many the lists name but the export lacks, and how many were too large; throws
 * 'not-instagram' when it has no list.
 */
export async function importInstagram(zip, add, progress = () => {}, maxBytes = Infinity) {
  const files = await directory(zip);
  const names = [...files.keys()].filter((name) => LIST.test(name));
  if (names.length === 0) throw new Error('not-instagram');
  const lists = [];
  for (const list of names) lists.push([list, JSON.parse(await (await read(zip, files.get(list), 'application/json', LIST_BYTES)).text())]);
  const { media, missing } = mediaOf(lists, new Set(files.keys()));
  let tooLarge = 0;
  for (const [index, item] of media.entries()) {
    progress(index, media.length);
    const extension = item.path.split('.').pop().toLowerCase();
    // Larger than the server takes: not inflated in the browser's memory for a refusal.
    if (files.get(item.path).size > maxBytes) { tooLarge += 1; continue; }
    const blob = await read(zip, files.get(item.path), TYPES[extension]);
    const lastModified = item.time ? item.time * 1000 : Date.now();
    await add(new File([blob], item.path.split('/').pop(), { type: TYPES[extension], lastModified }), item.caption);
  }
  return { added: media.length - tooLarge, missing: missing.length, tooLarge };
}
