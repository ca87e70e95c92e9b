// Small DOM and formatting helpers shared by the views.

/**
 * h builds an element: h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child).
 * Attributes named on* become listeners; `dataset` takes an object; false,
 * null and undefined attributes and children are skipped. Text is always
 * inserted as text, never parsed as HTML.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (k === 'class') {
      el.className = v;
    } else if (k in el && typeof v !== 'string') {
      el[k] = v; // properties such as value, checked, disabled
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** clear empties el and appends children. */
export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** clock formats milliseconds as m:ss (or h:mm:ss). */
export function clock(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return '–';
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** duration formats seconds as "1 min 5 s". */
export function duration(sec) {
  if (sec === null || sec === undefined) return '–';
  if (sec < 60) return `${(Math.round(sec * 10) / 10).toLocaleString()} s`;
  const s = Math.round(sec);
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** bytes formats a size for people. */
export function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** when formats an API timestamp (no zone means UTC) in the local zone. */
export function when(ts) {
  if (!ts) return '–';
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(ts) ? ts : ts + 'Z');
  if (isNaN(d)) return ts;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** percent formats a 0..1 number. */
export function percent(x) {
  if (x === null || x === undefined || !isFinite(x)) return '–';
  return `${Math.round(x * 100)}%`;
}

/** speakerClass maps a speaker label ("A", "B", ...) or channel to one of 8 colour classes. */
export function speakerClass(label) {
  if (!label) return 'spk-0';
  const s = String(label);
  let n = 0;
  if (/^[A-Z]$/.test(s)) n = s.charCodeAt(0) - 65;
  else if (/^\d+$/.test(s)) n = parseInt(s, 10) - 1;
  else for (const ch of s) n = (n * 31 + ch.charCodeAt(0)) >>> 0;
  return `spk-${(n % 8 + 8) % 8 + 1}`;
}

/** humanize turns snake_case API names into words ("person_name" -> "Person name"). */
const ACRONYMS = new Set(['us', 'ip', 'cvv', 'url', 'id', 'pii', 'iab']);

export function humanize(s) {
  const t = String(s).split('_').map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w)).join(' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** download saves a Blob under name through a temporary object URL. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** announce speaks msg through the page's polite live region. */
export function announce(msg) {
  const r = document.getElementById('announcer');
  if (r) {
    r.textContent = '';
    requestAnimationFrame(() => { r.textContent = msg; });
  }
}

/** isUploadURL reports whether url is a server upload URL (deleted after transcription). */
export function isUploadURL(url) {
  try {
    return /^\/v2\/upload\/[^/]+$/.test(new URL(url).pathname);
  } catch {
    return false;
  }
}
