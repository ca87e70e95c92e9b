// The transcript list: newest first, paged through page_details.prev_url
// (older) with a stack of the pages seen for going back (newer), refreshed
// every few seconds while any transcript on the page is queued or
// processing.

import { api } from './api.js';
import { names, forget } from './audio-store.js';
import { h, clear, when, announce } from './util.js';

const REFRESH_MS = 2000;

// Paging state survives leaving the view (open a transcript, come back).
const state = { limit: 10, status: '', stack: [], current: null };

export function statusBadge(status) {
  return h('span', { class: `badge status-${status}` }, status);
}

function audioLabel(item, localNames) {
  if (localNames.has(item.id)) return localNames.get(item.id);
  const u = item.audio_url || '';
  if (u === 'http://deleted_by_user') return 'deleted';
  try {
    const url = new URL(u);
    if (/^\/v2\/upload\//.test(url.pathname)) return 'uploaded file';
    return url.hostname + decodeURIComponent(url.pathname).replace(/^.*\//, '/…/');
  } catch {
    return u;
  }
}

export function listView(root) {
  let timer = null;
  let gone = false;
  const tbody = h('tbody');
  const info = h('p', { class: 'muted', id: 'list-info', 'aria-live': 'polite' });
  const error = h('p', { class: 'error', role: 'alert' });
  const newer = h('button', { type: 'button', id: 'page-newer', onclick: () => go(state.stack.pop() ?? null, false) }, '← Newer');
  const older = h('button', { type: 'button', id: 'page-older' }, 'Older →');
  const newest = h('button', { type: 'button', class: 'link', onclick: () => { state.stack = []; go(null, false); } }, 'Newest');
  const statusSel = h('select', { id: 'status-filter', onchange: () => { state.status = statusSel.value; state.stack = []; go(null, false); } },
    ['', 'queued', 'processing', 'completed', 'error'].map((s) => h('option', { value: s, selected: s === state.status }, s || 'any status')));
  const limitSel = h('select', { id: 'page-size', onchange: () => { state.limit = +limitSel.value; state.stack = []; go(null, false); } },
    [10, 25, 50, 100].map((n) => h('option', { value: String(n), selected: n === state.limit }, String(n))));

  clear(root,
    h('div', { class: 'view-head' },
      h('h1', {}, 'Transcripts'),
      h('a', { class: 'button primary', href: '#/upload' }, 'Upload audio')),
    h('div', { class: 'toolbar' },
      h('label', { for: 'status-filter' }, 'Status'), statusSel,
      h('label', { for: 'page-size' }, 'Per page'), limitSel,
      h('span', { class: 'spacer' }),
      newest, newer, older),
    error,
    h('div', { class: 'table-wrap' },
      h('table', { class: 'list', id: 'transcripts' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col' }, 'Created'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col' }, 'Audio'),
          h('th', { scope: 'col' }, 'Completed'),
          h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
        tbody)),
    info);

  async function load() {
    clearTimeout(timer);
    try {
      const page = state.current
        ? await api.list(state.current)
        : await api.list({ limit: state.limit, status: state.status || undefined });
      if (gone) return;
      error.textContent = '';
      await render(page);
      if (page.transcripts.some((t) => t.status === 'queued' || t.status === 'processing')) {
        timer = setTimeout(load, REFRESH_MS);
      }
    } catch (e) {
      if (gone) return;
      error.textContent = `Could not load the transcripts: ${e.message}`;
      timer = setTimeout(load, REFRESH_MS * 3);
    }
  }

  function go(url, push) {
    if (push) state.stack.push(state.current);
    state.current = url;
    load();
  }

  async function render(page) {
    const items = page.transcripts || [];
    const localNames = await names(items.map((t) => t.id));
    clear(tbody, items.map((t) => {
      const open = `#/t/${encodeURIComponent(t.id)}`;
      return h('tr', { dataset: { id: t.id, status: t.status } },
        h('td', {}, h('a', { href: open, class: 'open' }, when(t.created))),
        h('td', {}, statusBadge(t.status), t.error ? h('span', { class: 'error small', title: t.error }, ' ', t.error) : null),
        h('td', { class: 'audio-cell' }, audioLabel(t, localNames)),
        h('td', {}, when(t.completed)),
        h('td', { class: 'row-actions' },
          h('a', { href: open, 'aria-label': `Open transcript ${t.id}` }, 'Open'),
          h('button', {
            type: 'button', class: 'link danger', 'aria-label': `Delete transcript ${t.id}`,
            onclick: async () => {
              if (!confirm('Delete this transcript? Its text and results are removed from the server.')) return;
              try {
                await api.remove(t.id);
                await forget(t.id);
                announce('Transcript deleted');
                load();
              } catch (e) {
                error.textContent = `Could not delete: ${e.message}`;
              }
            },
          }, 'Delete')));
    }));
    if (items.length === 0) {
      tbody.append(h('tr', {}, h('td', { colspan: 5, class: 'empty' },
        state.current ? 'No transcripts on this page.' : 'No transcripts yet. ', state.current ? null : h('a', { href: '#/upload' }, 'Upload a file'))));
    }
    const pd = page.page_details || {};
    newer.disabled = state.stack.length === 0 && !state.current;
    older.disabled = !pd.prev_url;
    older.onclick = () => go(pd.prev_url, true);
    info.textContent = `${pd.result_count ?? items.length} shown` + (state.current ? '' : ', newest first');
  }

  load();
  return () => { gone = true; clearTimeout(timer); };
}
