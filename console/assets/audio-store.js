// The server deletes an uploaded file once its transcript is done, so the
// player plays the user's own copy: the File dropped in this browser,
// kept in memory and, best effort, in IndexedDB (this origin only) so a
// reload can still play it. Entries go when the transcript is deleted or
// the key is forgotten.

const memory = new Map(); // transcript id -> {blob, name, type}
const DB = 'earshot-console';
const STORE = 'audio';

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
  const entry = { blob: file, name: file.name || 'audio', type: file.type || '' };
  memory.set(id, entry);
  try {
    await tx('readwrite', (s) => s.put(entry, id));
  } catch { /* private mode or quota: memory only */ }
}

/** recall returns {blob, name, type} for transcript id, or null. */
export async function recall(id) {
  if (memory.has(id)) return memory.get(id);
  try {
    const e = await tx('readonly', (s) => s.get(id));
    if (e && e.blob) {
      memory.set(id, e);
      return e;
    }
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
