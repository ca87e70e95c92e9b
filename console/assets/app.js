// Entry point: the key form, the navigation and a hash router
// (#/transcripts, #/upload, #/t/<id>, #/live). Views are functions that
// fill the main element and return an optional cleanup function, called
// when the user navigates away.

import { api, getKey, setKey, forgetKey, APIError } from './api.js';
import { forgetAll, prune } from './audio-store.js';
import { h, clear, announce } from './util.js';
import { listView } from './list.js';
import { uploadView } from './upload.js';
import { transcriptView } from './transcript.js';
import { liveView } from './live.js';

const main = document.getElementById('main');
const keyStatus = document.getElementById('key-status');
let cleanup = null;

function keyView(root, next) {
  const input = h('input', {
    id: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true,
    'aria-describedby': 'api-key-help api-key-error',
  });
  const error = h('p', { id: 'api-key-error', class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Use this key');
  const form = h('form', { class: 'card narrow', id: 'key-form', novalidate: true },
    h('h1', {}, 'Sign in with an API key'),
    h('p', { id: 'api-key-help', class: 'muted' },
      'The key is kept in this tab only (session storage) and sent in the authorization header of each request. ',
      'Files you upload stay in this browser for playback for at most 24 hours, until you forget the key, or until the next sign-in. ',
      'The reference server prints a development key at its first start and keeps it in ',
      h('code', {}, 'earshot-data/dev-api-key'), '.'),
    h('label', { for: 'api-key' }, 'API key'),
    input, error,
    h('div', { class: 'actions' }, button));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const k = input.value.trim();
    error.textContent = '';
    if (!k) {
      error.textContent = 'Enter an API key.';
      input.focus();
      return;
    }
    button.disabled = true;
    button.textContent = 'Checking…';
    // A new sign-in: audio kept in this browser belongs to an earlier one
    // (its key is gone with its tab, or is being replaced).
    await forgetAll();
    try {
      await api.check(k);
      setKey(k);
      updateKeyStatus();
      announce('Signed in');
      next();
    } catch (err) {
      error.textContent = err instanceof APIError && err.status === 401
        ? 'This key was refused by the server (401). Check it and try again.'
        : `Could not check the key: ${err.message}`;
      input.select();
    } finally {
      button.disabled = false;
      button.textContent = 'Use this key';
    }
  });
  clear(root, form);
  input.focus();
}

function updateKeyStatus() {
  const k = getKey();
  if (!k) {
    clear(keyStatus);
    return;
  }
  const masked = k.length > 8 ? `${k.slice(0, 4)}…${k.slice(-2)}` : '••••';
  clear(keyStatus,
    h('span', { class: 'muted', title: 'API key in use' }, 'Key ', h('code', {}, masked)),
    h('button', {
      type: 'button', class: 'link', id: 'forget-key',
      onclick: async () => {
        forgetKey();
        await forgetAll();
        updateKeyStatus();
        route();
      },
    }, 'Forget key'));
}

function setActiveNav(name) {
  for (const a of document.querySelectorAll('nav.main-nav a')) {
    if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

export function route() {
  if (cleanup) {
    try { cleanup(); } catch (e) { console.error(e); }
    cleanup = null;
  }
  const hash = location.hash.replace(/^#/, '') || '/transcripts';
  const parts = hash.split('/').filter(Boolean).map(decodeURIComponent);
  if (!getKey()) {
    setActiveNav('');
    document.title = 'Sign in · Earshot';
    keyView(main, route);
    return;
  }
  let view;
  let nav = parts[0];
  switch (parts[0]) {
    case 'upload': view = (r) => uploadView(r); break;
    case 'live': view = (r) => liveView(r); break;
    case 't':
      nav = 'transcripts';
      view = (r) => transcriptView(r, parts[1] || '');
      break;
    case 'transcripts':
    default:
      nav = 'transcripts';
      view = (r) => listView(r);
  }
  setActiveNav(nav);
  clear(main);
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  cleanup = view(main) || null;
}

window.addEventListener('hashchange', route);
// The server refused the key in use: the audio uploaded with it goes.
window.addEventListener('earshot:unauthorized', () => { forgetAll(); });
// Uploaded audio is kept at most MAX_AGE_MS: prune now and every hour.
prune();
setInterval(prune, 60 * 60 * 1000);
// A file dropped outside the drop zone would replace the console with it.
for (const ev of ['dragover', 'drop']) {
  window.addEventListener(ev, (e) => {
    if (!(e.target instanceof Element && e.target.closest('#dropzone'))) e.preventDefault();
  });
}
updateKeyStatus();
route();
