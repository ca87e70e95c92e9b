// The server deletes an uploaded file once its transcript is done, so the
// player plays the user's own copy: the File dropped in this browser,
// kept in memory and, best effort, in IndexedDB (this origin only) so a
// reload can still play it. The API key lives only as long as the tab
// (sessionStorage) and IndexedDB outlives it, so stored audio must not:
// entries go when the transcript is deleted, when the key is forgotten,
// when a key is entered on the sign-in form (a new sign-in, refused or
// not: what is stored belongs to an earlier one), when the server refuses
// the key in use (401), and MAX_AGE_MS (24 hours) after the upload; the
// console prunes expired entries at start-up and every hour, and never
// plays one.

const memory = new Map(); // transcript id -> {blob, name, type, at}
const DB = 'earshot-console';
const STORE = 'audio';

/** MAX_AGE_MS is how long an uploaded file is kept in this browser: 24 hours. */
export const MAX_AGE_MS = 24 * 60 * 60 * 1000;

// fresh reports whether entry e was stored less than MAX_AGE_MS ago (an
// entry without a time, from an older console, or from the future, is not).
function fresh(e) {
  const now = Date.now();
  return !!e && typeof e.at === 'number' && e.at <= now + 60_000 && now - e.at < MAX_AGE_MS;
}

function open() {
  return new Promise((resolve, reject) => {
    if (!('indexedDB' in self)) return reject(new Error('no IndexedDB'));
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx(mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const t = db.transaction(STORE, mode);
      const req = fn(t.objectStore(STORE));
      t.oncomplete = () => resolve(req && req.result);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}

/** remember keeps file as the audio of transcript id. */
export async function remember(id, file) {
  const entry = { blob: file, name: file.name || 'audio', type: file.type || '', at: Date.now() };
  memory.set(id, entry);
  try {
    await tx('readwrite', (s) => s.put(entry, id));
  } catch { /* private mode or quota: memory only */ }
}

/** recall returns {blob, name, type} for transcript id, or null. */
export async function recall(id) {
  if (memory.has(id)) {
    if (fresh(memory.get(id))) return memory.get(id);
    await forget(id);
    return null;
  }
  try {
    const e = await tx('readonly', (s) => s.get(id));
    if (e && e.blob && fresh(e)) {
      memory.set(id, e);
      return e;
    }
    if (e) await forget(id);
  } catch { /* unavailable */ }
  return null;
}

/** names returns the file names known for the given ids (from memory and IndexedDB). */
export async function names(ids) {
  const out = new Map();
  await Promise.all(ids.map(async (id) => {
    const e = await recall(id);
    if (e) out.set(id, e.name);
  }));
  return out;
}

/** forget drops the audio of transcript id. */
export async function forget(id) {
  memory.delete(id);
  try {
    await tx('readwrite', (s) => s.delete(id));
  } catch { /* unavailable */ }
}

/** forgetAll drops every stored file. */
export async function forgetAll() {
  memory.clear();
  try {
    await tx('readwrite', (s) => s.clear());
  } catch { /* unavailable */ }
}

/** prune drops every entry older than MAX_AGE_MS (or without a time); it resolves to how many went. */
export async function prune() {
  for (const [id, e] of memory) {
    if (!fresh(e)) memory.delete(id);
  }
  try {
    return await new Promise((resolve, reject) => {
      let n = 0;
      tx('readwrite', (s) => {
        const req = s.openCursor();
        req.onsuccess = () => {
          const c = req.result;
          if (!c) return;
          if (!fresh(c.value)) {
            c.delete();
            n++;
          }
          c.continue();
        };
        return null;
      }).then(() => resolve(n), reject);
    });
  } catch {
    return 0; /* unavailable */
  }
}
