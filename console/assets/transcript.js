// One transcript: status while it runs; once completed an audio player
// whose current word is highlighted as it plays (binary search over word
// start times on each animation frame), words that seek when clicked,
// speakers in colours, word search, exports and the analysis panels.

import { api } from './api.js';
import { recall, remember, forget } from './audio-store.js';
import { h, clear, clock, duration, percent, speakerClass, download, announce, isUploadURL } from './util.js';
import { statusBadge } from './list.js';
import { analysisPanels, isRedactedWord } from './panels.js';

const POLL_MS = 2000;

/**
 * Timeline finds the word playing at a time. Words are indexed by start
 * (stable for equal starts); at(ms) is the last word starting at or before
 * ms, provided ms is before its end, else -1 (a pause between words).
 */
export class Timeline {
  constructor(words) {
    this.order = words.map((w, i) => i).sort((a, b) => words[a].start - words[b].start || a - b);
    this.starts = Float64Array.from(this.order, (i) => words[i].start);
    this.ends = Float64Array.from(this.order, (i) => words[i].end);
  }

  at(ms) {
    let lo = 0;
    let hi = this.starts.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= ms) {
        k = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return k >= 0 && ms < this.ends[k] ? this.order[k] : -1;
  }
}

/** blocksOf groups word indexes into utterances (with speakers) or paragraphs, or one block. */
function blocksOf(words, segments) {
  if (!Array.isArray(segments) || segments.length === 0) return [{ indexes: words.map((_, i) => i) }];
  const byKey = new Map();
  words.forEach((w, i) => {
    const k = `${w.start}|${w.end}|${w.text}`;
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(i);
  });
  const blocks = [];
  let mapped = 0;
  for (const s of segments) {
    const indexes = [];
    for (const w of s.words || []) {
      const q = byKey.get(`${w.start}|${w.end}|${w.text}`);
      if (q && q.length) indexes.push(q.shift());
    }
    mapped += indexes.length;
    blocks.push({ indexes, speaker: s.speaker, channel: s.channel, start: s.start });
  }
  // Segments that do not cover every word exactly: show one block rather than lose words.
  if (mapped !== words.length) return [{ indexes: words.map((_, i) => i) }];
  return blocks;
}

function baseName(name, id) {
  const n = (name || '').replace(/\.[^.]+$/, '').replace(/[^\w.-]+/g, '_');
  return n || `transcript-${id.slice(0, 8)}`;
}

function textExport(t) {
  if (Array.isArray(t.utterances) && t.utterances.length) {
    return t.utterances.map((u) => `[${clock(u.start)}] ${u.channel && !u.speaker ? `Channel ${u.channel}` : `Speaker ${u.speaker}`}: ${u.text}`).join('\n\n') + '\n';
  }
  return (t.text || '') + '\n';
}

export function transcriptView(root, id) {
  let gone = false;
  let timer = null;
  let raf = 0;
  let objectURL = '';
  const ctrl = new AbortController();

  const head = h('div', { class: 'view-head' },
    h('h1', { id: 'transcript-title' }, 'Transcript'),
    h('a', { href: '#/transcripts', class: 'button' }, '← All transcripts'));
  const body = h('div', { id: 'transcript-body' }, h('p', { class: 'muted' }, 'Loading…'));
  clear(root, head, body);

  async function load() {
    try {
      const t = await api.get(id, ctrl.signal);
      if (gone) return;
      if (t.status === 'queued' || t.status === 'processing') {
        pending(t);
        timer = setTimeout(load, POLL_MS);
        return;
      }
      await show(t);
    } catch (e) {
      if (gone || e.name === 'AbortError') return;
      clear(body, h('p', { class: 'error', role: 'alert' }, `Could not load transcript ${id}: ${e.message}`));
    }
  }

  function pending(t) {
    clear(body, h('div', { class: 'card pending', id: 'pending' },
      h('p', {}, statusBadge(t.status), ' ', h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        t.status === 'queued' ? ' Waiting for a worker…' : ' Transcribing…'),
      h('p', { class: 'muted small' }, 'This page refreshes by itself.')));
  }

  async function show(t) {
    const local = await recall(t.id);
    if (gone) return;
    const title = local ? local.name : `Transcript ${t.id.slice(0, 8)}`;
    document.title = `${title} · Earshot`;
    clear(head.querySelector('h1'), title);

    if (t.status === 'error') {
      clear(body, h('div', { class: 'card' },
        h('p', {}, statusBadge('error'), ' The transcription failed.'),
        h('p', { class: 'error', role: 'alert', id: 'transcript-error' }, t.error || 'No reason was given.'),
        deleteButton(t)));
      return;
    }
    if (t.is_deleted || t.audio_url === 'http://deleted_by_user') {
      clear(body, h('div', { class: 'card' }, h('p', {}, 'This transcript was deleted.')));
      return;
    }

    const words = Array.isArray(t.words) ? t.words : [];
    const timeline = new Timeline(words);
    const audio = h('audio', { controls: true, preload: 'metadata', id: 'player' });
    const audioNote = h('p', { class: 'muted small', id: 'audio-note', 'aria-live': 'polite' });
    const follow = h('input', { type: 'checkbox', id: 'follow', checked: true });
    const spans = [];
    let current = -1;
    let focusIdx = 0;

    // Audio sources: the local copy, else a playable audio_url, else say so.
    function setSource(url, note) {
      audio.src = url;
      audioNote.textContent = note;
      audio.dataset.source = url.startsWith('blob:') ? 'local' : 'remote';
    }
    function useLocal(entry) {
      if (objectURL) URL.revokeObjectURL(objectURL);
      objectURL = URL.createObjectURL(entry.blob);
      setSource(objectURL, `Playing your copy of ${entry.name} (kept in this browser).`);
    }
    const attach = h('input', { type: 'file', id: 'attach-audio', accept: 'audio/*,video/*', class: 'sr-only' });
    attach.addEventListener('change', async () => {
      const f = attach.files[0];
      if (!f) return;
      await remember(t.id, f);
      useLocal({ blob: f, name: f.name });
      noAudio.hidden = true;
    });
    const noAudio = h('div', { class: 'no-audio', id: 'no-audio', hidden: true },
      h('p', {}, h('strong', {}, 'No audio available. '),
        'The server deletes uploaded files once they are transcribed, and this browser has no copy of this one. ',
        'Choose the original file to play along (it stays on this computer).'),
      h('label', { for: 'attach-audio', class: 'button' }, 'Choose the audio file…'), attach);
    if (local) useLocal(local);
    else if (/^https?:/i.test(t.audio_url || '') && !isUploadURL(t.audio_url)) {
      setSource(t.audio_url, `Playing ${t.audio_url}`);
    } else noAudio.hidden = false;
    audio.addEventListener('error', () => {
      if (!audio.getAttribute('src')) return;
      audioNote.textContent = 'This audio cannot be played here (it is missing, or the browser cannot decode it).';
      noAudio.hidden = false;
    });

    // Words.
    const segments = Array.isArray(t.utterances) && t.utterances.length ? t.utterances
      : await api.paragraphs(t.id).then((p) => p.paragraphs).catch(() => null);
    if (gone) return;
    const blocks = blocksOf(words, segments);
    const textEl = h('div', {
      class: 'transcript-text', id: 'words', role: 'group', 'aria-label': 'Transcript words; arrow keys move, Enter plays from the word',
    });
    for (const b of blocks) {
      const p = h('p', { class: 'words' });
      b.indexes.forEach((i, n) => {
        const w = words[i];
        const cls = ['w'];
        if (typeof w.confidence === 'number' && w.confidence < 0.5) cls.push('low');
        if (isRedactedWord(w.text)) cls.push('redacted');
        if (w.speaker) cls.push(speakerClass(w.speaker));
        const s = h('span', { class: cls.join(' '), dataset: { i: String(i) }, tabindex: i === 0 ? '0' : '-1' }, w.text);
        spans[i] = s;
        if (n > 0) p.append(' ');
        p.append(s);
      });
      const who = b.speaker ? `Speaker ${b.speaker}` : b.channel ? `Channel ${b.channel}` : '';
      textEl.append(h('div', { class: `block ${who ? speakerClass(b.speaker || b.channel) : ''}`, dataset: { speaker: b.speaker || '' } },
        who || b.start !== undefined ? h('div', { class: 'block-head' },
          who ? h('span', { class: 'speaker' }, who) : null,
          b.start !== undefined ? h('button', { type: 'button', class: 'ts', onclick: () => seek(b.start, true), 'aria-label': `Play from ${clock(b.start)}` }, clock(b.start)) : null) : null,
        p));
    }
    if (words.length === 0) textEl.append(h('p', { class: 'muted' }, t.text ? t.text : 'No speech was recognized.'));

    // Entities underline their words.
    for (const e of t.entities || []) {
      for (let i = 0; i < words.length; i++) {
        if (words[i].start >= e.start && words[i].end <= e.end && spans[i]) {
          spans[i].classList.add('entity');
          spans[i].title = e.entity_type.replace(/_/g, ' ');
        }
      }
    }

    function highlight(i) {
      if (i === current) return;
      if (current >= 0 && spans[current]) spans[current].classList.remove('current');
      current = i;
      textEl.dataset.current = String(i);
      if (i >= 0 && spans[i]) {
        spans[i].classList.add('current');
        if (follow.checked) spans[i].scrollIntoView({ block: 'nearest', inline: 'nearest' });
      }
    }
    function tick() {
      highlight(timeline.at(audio.currentTime * 1000));
    }
    function loop() {
      raf = 0;
      tick();
      if (!audio.paused && !audio.ended && !gone) raf = requestAnimationFrame(loop);
    }
    audio.addEventListener('play', () => { if (!raf) raf = requestAnimationFrame(loop); });
    audio.addEventListener('seeked', tick);
    audio.addEventListener('timeupdate', () => { if (!raf) tick(); });

    /** seek moves playback to ms; play starts it when asked. Without audio the word is still marked. */
    function seek(ms, play = false) {
      const i = timeline.at(ms + 1);
      if (!audio.getAttribute('src')) {
        highlight(i);
        announce('No audio to play; choose the audio file first.');
        return;
      }
      audio.currentTime = (ms + 1) / 1000;
      highlight(i);
      if (play) audio.play().catch(() => {});
    }
    textEl.addEventListener('click', (e) => {
      const s = e.target.closest('.w');
      if (!s) return;
      const i = +s.dataset.i;
      moveFocus(i, false);
      seek(words[i].start);
    });
    function moveFocus(i, focus = true) {
      if (!spans[i]) return;
      if (spans[focusIdx]) spans[focusIdx].tabIndex = -1;
      focusIdx = i;
      spans[i].tabIndex = 0;
      if (focus) spans[i].focus();
    }
    textEl.addEventListener('keydown', (e) => {
      if (!e.target.classList.contains('w')) return;
      const i = +e.target.dataset.i;
      const pos = timeline.order.indexOf(i);
      let next = -1;
      if (e.key === 'ArrowRight' || e.key === 'ArrowDown') next = timeline.order[Math.min(pos + 1, words.length - 1)];
      else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') next = timeline.order[Math.max(pos - 1, 0)];
      else if (e.key === 'Home') next = timeline.order[0];
      else if (e.key === 'End') next = timeline.order[words.length - 1];
      else if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        seek(words[i].start, true);
        return;
      } else return;
      e.preventDefault();
      moveFocus(next);
    });

    // Word search.
    const searchInput = h('input', { type: 'search', id: 'search-words', placeholder: 'budget, new york', 'aria-describedby': 'search-help' });
    const searchOut = h('div', { id: 'search-results', 'aria-live': 'polite' });
    const searchForm = h('form', { class: 'search', role: 'search' },
      h('label', { for: 'search-words' }, 'Find words'),
      h('div', { class: 'inline' }, searchInput, h('button', { type: 'submit' }, 'Search')),
      h('p', { id: 'search-help', class: 'hint' }, 'Words or phrases, separated by commas.'),
      searchOut);
    searchForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      for (const s of textEl.querySelectorAll('.w.hit')) s.classList.remove('hit');
      const terms = searchInput.value.split(',').map((s) => s.trim()).filter(Boolean);
      if (!terms.length) {
        clear(searchOut);
        return;
      }
      clear(searchOut, h('p', { class: 'muted small' }, 'Searching…'));
      try {
        const r = await api.wordSearch(t.id, terms);
        for (const m of r.matches) for (const i of m.indexes) spans[i]?.classList.add('hit');
        clear(searchOut,
          h('p', { class: 'search-total' }, `${r.total_count} match${r.total_count === 1 ? '' : 'es'}`),
          h('ul', { class: 'matches' }, r.matches.map((m) => h('li', { dataset: { term: m.text, count: String(m.count) } },
            h('strong', {}, m.text), h('span', { class: 'muted' }, ` ×${m.count} `),
            m.timestamps.map(([start]) => h('button', {
              type: 'button', class: 'ts', onclick: () => seek(start, true), 'aria-label': `${m.text} at ${clock(start)}`,
            }, clock(start)))))));
        const first = r.matches.flatMap((m) => m.indexes).sort((a, b) => a - b)[0];
        if (first !== undefined && spans[first]) spans[first].scrollIntoView({ block: 'nearest' });
      } catch (err) {
        clear(searchOut, h('p', { class: 'error', role: 'alert' }, err.message));
      }
    });

    // Exports.
    const base = baseName(local?.name, t.id);
    const chars = h('input', { type: 'number', id: 'chars-per-caption', min: 1, placeholder: 'auto', class: 'narrow-input' });
    const exportError = h('p', { class: 'error', role: 'alert' });
    const exp = (label, id, fn) => h('button', {
      type: 'button', id, onclick: async () => {
        exportError.textContent = '';
        try {
          const [blob, name] = await fn();
          download(blob, name);
        } catch (e) {
          exportError.textContent = `${label}: ${e.message}`;
        }
      },
    }, label);
    const json = (v) => new Blob([JSON.stringify(v, null, 2) + '\n'], { type: 'application/json' });
    const exports = h('section', { class: 'card', 'aria-labelledby': 'exports-h', id: 'exports' },
      h('h2', { id: 'exports-h' }, 'Export'),
      h('p', { class: 'hint' }, 'Subtitles (SRT, VTT), plain text, sentences and paragraphs (JSON), or the whole transcript (JSON).'),
      h('div', { class: 'button-grid' },
        exp('SRT', 'export-srt', async () => [new Blob([await api.subtitles(t.id, 'srt', chars.value)], { type: 'text/plain' }), `${base}.srt`]),
        exp('VTT', 'export-vtt', async () => [new Blob([await api.subtitles(t.id, 'vtt', chars.value)], { type: 'text/vtt' }), `${base}.vtt`]),
        exp('Text', 'export-txt', async () => [new Blob([textExport(t)], { type: 'text/plain' }), `${base}.txt`]),
        exp('Sentences', 'export-sentences', async () => [json(await api.sentences(t.id)), `${base}.sentences.json`]),
        exp('Paragraphs', 'export-paragraphs', async () => [json(await api.paragraphs(t.id)), `${base}.paragraphs.json`]),
        exp('JSON', 'export-json', async () => [json(t), `${base}.json`])),
      h('div', { class: 'field inline-field' }, h('label', { for: 'chars-per-caption' }, 'Characters per caption'), chars),
      exportError);

    // Details.
    const featureNames = {
      speaker_labels: 'speaker labels', multichannel: 'multichannel', dual_channel: 'dual channel', entity_detection: 'entities',
      redact_pii: 'PII redaction', redact_pii_audio: 'redacted audio', sentiment_analysis: 'sentiment', auto_highlights: 'key phrases',
      iab_categories: 'topics', content_safety: 'content safety', summarization: 'summary', auto_chapters: 'chapters',
      disfluencies: 'filler words', filter_profanity: 'profanity filter',
    };
    const features = Object.keys(featureNames).filter((k) => t[k] === true).map((k) => featureNames[k]);
    const details = h('section', { class: 'card', 'aria-labelledby': 'details-h' },
      h('h2', { id: 'details-h' }, 'Details'),
      h('dl', { class: 'details' },
        h('dt', {}, 'Status'), h('dd', {}, statusBadge(t.status)),
        h('dt', {}, 'Duration'), h('dd', {}, duration(t.audio_duration)),
        h('dt', {}, 'Words'), h('dd', { id: 'word-count' }, String(words.length)),
        h('dt', {}, 'Confidence'), h('dd', {}, percent(t.confidence)),
        h('dt', {}, 'Language'), h('dd', {}, t.language_code || '–',
          t.language_confidence !== null && t.language_confidence !== undefined ? ` (${percent(t.language_confidence)})` : ''),
        h('dt', {}, 'Features'), h('dd', {}, features.length ? features.join(', ') : 'none'),
        h('dt', {}, 'ID'), h('dd', {}, h('code', { class: 'id' }, t.id))),
      deleteButton(t));

    const panels = analysisPanels(t, (ms) => seek(ms, true), {
      onRedactedAudio: async () => {
        const r = await api.redactedAudio(t.id);
        setSource(r.redacted_audio_url, 'Playing the redacted audio.');
        noAudio.hidden = true;
        return 'The player now plays the redacted audio.';
      },
    });

    const speakers = [...new Set(blocks.map((b) => b.speaker).filter(Boolean))];
    clear(body,
      h('div', { class: 'transcript-layout' },
        h('div', { class: 'transcript-main' },
          h('section', { class: 'card player', 'aria-label': 'Player' },
            audio, audioNote, noAudio,
            h('div', { class: 'player-opts' },
              h('div', { class: 'check' }, follow, h('label', { for: 'follow' }, 'Follow the playing word')),
              speakers.length ? h('ul', { class: 'legend', 'aria-label': 'Speakers' },
                speakers.map((s) => h('li', { class: speakerClass(s) }, h('span', { class: 'dot', 'aria-hidden': 'true' }), `Speaker ${s}`))) : null)),
          h('section', { class: 'card', 'aria-label': 'Transcript' }, textEl),
          panels.length ? h('div', { class: 'panels', id: 'panels' }, panels) : null),
        h('aside', { class: 'transcript-side' },
          h('section', { class: 'card', 'aria-label': 'Search' }, searchForm),
          exports, details)));
  }

  function deleteButton(t) {
    return h('div', { class: 'actions' }, h('button', {
      type: 'button', class: 'danger', id: 'delete-transcript', onclick: async () => {
        if (!confirm('Delete this transcript? Its text and results are removed from the server.')) return;
        try {
          await api.remove(t.id);
          await forget(t.id);
          announce('Transcript deleted');
          location.hash = '#/transcripts';
        } catch (e) {
          alert(`Could not delete: ${e.message}`);
        }
      },
    }, 'Delete transcript'));
  }

  load();
  return () => {
    gone = true;
    ctrl.abort();
    clearTimeout(timer);
    if (raf) cancelAnimationFrame(raf);
    raf = 0;
    for (const a of root.querySelectorAll('audio')) a.pause();
    if (objectURL) URL.revokeObjectURL(objectURL);
  };
}
