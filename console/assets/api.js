// The v2 API on this page's own origin. The API key lives in
// sessionStorage (gone when the tab closes) and travels only in the
// authorization header, never in a URL.

const KEY = 'earshot.apiKey';

export function getKey() {
  return sessionStorage.getItem(KEY) || '';
}

export function setKey(k) {
  sessionStorage.setItem(KEY, k);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY);
}

/** APIError carries the HTTP status and the server's {"error": ...} message. */
export class APIError extends Error {
  constructor(status, message) {
    super(message || `HTTP ${status}`);
    this.name = 'APIError';
    this.status = status;
  }
}

async function errorFrom(res) {
  const text = await res.text().catch(() => '');
  let msg = text.trim();
  try {
    const j = JSON.parse(text);
    if (j && typeof j.error === 'string') msg = j.error;
  } catch { /* plain text body (422 upload, 404 format) */ }
  if (res.status === 401) msg = `Not authorized: ${msg || 'the API key was refused'}`;
  return new APIError(res.status, msg || `HTTP ${res.status} ${res.statusText}`);
}

/** localPath keeps the path and query of an API URL (page_details URLs are absolute on the server's public origin). */
export function localPath(url) {
  const u = new URL(url, location.origin);
  if (!u.pathname.startsWith('/v2/')) throw new Error(`not an API URL: ${url}`);
  return u.pathname + u.search;
}

async function request(method, path, { json, as = 'json', key = getKey(), signal } = {}) {
  const headers = { authorization: key };
  let body;
  if (json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(json);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body, cache: 'no-store', signal, credentials: 'omit' });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new APIError(0, `The server could not be reached (${e.message})`);
  }
  if (!res.ok) {
    // The key in use was refused (revoked, or the server changed): let the
    // console drop what it keeps for it.
    if (res.status === 401 && key && key === getKey()) window.dispatchEvent(new Event('earshot:unauthorized'));
    throw await errorFrom(res);
  }
  if (as === 'text') return res.text();
  if (as === 'blob') return res.blob();
  return res.json();
}

const enc = encodeURIComponent;

export const api = {
  /** check tries key with the cheapest authenticated call; it throws APIError(401) when refused. */
  check(key) {
    return request('GET', '/v2/transcript?limit=1', { key });
  },

  /**
   * upload sends file to POST /v2/upload with XMLHttpRequest (fetch reports
   * no upload progress). onProgress(loaded, total) runs as bytes leave.
   * Returns {promise, abort}; the promise resolves to the upload_url.
   */
  upload(file, onProgress) {
    const xhr = new XMLHttpRequest();
    const promise = new Promise((resolve, reject) => {
      xhr.open('POST', '/v2/upload');
      xhr.setRequestHeader('authorization', getKey());
      xhr.setRequestHeader('content-type', 'application/octet-stream');
      xhr.responseType = 'text';
      xhr.upload.onprogress = (e) => onProgress && onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
      xhr.onload = () => {
        if (xhr.status === 200) {
          try {
            resolve(JSON.parse(xhr.responseText).upload_url);
          } catch {
            reject(new APIError(xhr.status, 'The upload answer was not JSON'));
          }
          return;
        }
        let msg = (xhr.responseText || '').trim();
        try { msg = JSON.parse(msg).error || msg; } catch { /* plain text */ }
        if (xhr.status === 401) msg = `Not authorized: ${msg}`;
        reject(new APIError(xhr.status, msg || `HTTP ${xhr.status}`));
      };
      xhr.onerror = () => reject(new APIError(0, 'The upload failed: the connection to the server was lost'));
      xhr.onabort = () => reject(new APIError(0, 'The upload was cancelled'));
      xhr.send(file);
    });
    return { promise, abort: () => xhr.abort() };
  },

  submit(params) { return request('POST', '/v2/transcript', { json: params }); },
  get(id, signal) { return request('GET', `/v2/transcript/${enc(id)}`, { signal }); },
  remove(id) { return request('DELETE', `/v2/transcript/${enc(id)}`); },

  /** list takes query parameters or a page_details URL. */
  list(q) {
    if (typeof q === 'string') return request('GET', localPath(q));
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(q || {})) if (v !== undefined && v !== null && v !== '') qs.set(k, v);
    const s = qs.toString();
    return request('GET', '/v2/transcript' + (s ? '?' + s : ''));
  },

  subtitles(id, format, chars) {
    const q = chars ? `?chars_per_caption=${enc(chars)}` : '';
    return request('GET', `/v2/transcript/${enc(id)}/${format}${q}`, { as: 'text' });
  },
  sentences(id) { return request('GET', `/v2/transcript/${enc(id)}/sentences`); },
  paragraphs(id) { return request('GET', `/v2/transcript/${enc(id)}/paragraphs`); },
  /** wordSearch sends the terms comma-joined and form-encoded, as the SDKs do. */
  wordSearch(id, words) {
    const q = new URLSearchParams({ words: words.join(',') });
    return request('GET', `/v2/transcript/${enc(id)}/word-search?${q}`);
  },
  redactedAudio(id) { return request('GET', `/v2/transcript/${enc(id)}/redacted-audio`); },
  realtimeToken(expiresIn) { return request('POST', '/v2/realtime/token', { json: { expires_in: expiresIn } }); },
  /** streamingToken mints a single-use Universal-Streaming (v3) token. */
  streamingToken(expiresIn) { return request('GET', `/v3/token?expires_in_seconds=${enc(expiresIn)}`); },
};
