// Panels for the analysis results of a transcript: entities, redaction,
// sentiment, key phrases, topics, content safety, summary and chapters.
// Each renders only what the transcript carries: a null field (feature
// not requested) or an empty pending object ({}) gives no panel; a result
// whose status is "unavailable" gives a panel saying so.

import { h, clock, humanize, percent } from './util.js';

function panel(name, title, ...body) {
  return h('section', { class: 'card panel', dataset: { panel: name }, 'aria-labelledby': `panel-${name}` },
    h('h2', { id: `panel-${name}` }, title), ...body);
}

function timeButton(ms, seek, label) {
  return h('button', {
    type: 'button', class: 'ts', onclick: () => seek(ms),
    'aria-label': `${label ? label + ', ' : ''}play from ${clock(ms)}`,
  }, clock(ms));
}

function bar(value, cls = '') {
  const v = Math.max(0, Math.min(1, Number(value) || 0));
  const fill = h('span', { class: `bar-fill ${cls}` });
  fill.style.setProperty('--w', `${(v * 100).toFixed(1)}%`);
  return h('span', { class: 'bar', role: 'img', 'aria-label': percent(v) }, fill);
}

function unavailable(name, title) {
  return panel(name, title, h('p', { class: 'muted unavailable' }, 'Requested, but this server produced no result for it.'));
}

/** hasResult tells a produced result object from null and from the pending {}. */
function resultState(r) {
  if (!r || typeof r !== 'object') return 'none';
  if (r.status === 'unavailable') return 'unavailable';
  if (r.status === 'success' || Array.isArray(r.results)) return 'success';
  return 'none';
}

export function entitiesPanel(t, seek) {
  if (!Array.isArray(t.entities)) return null;
  if (t.entities.length === 0) return panel('entities', 'Entities', h('p', { class: 'muted' }, 'No entities found.'));
  const byType = new Map();
  for (const e of t.entities) {
    if (!byType.has(e.entity_type)) byType.set(e.entity_type, []);
    byType.get(e.entity_type).push(e);
  }
  const types = [...byType.keys()].sort();
  return panel('entities', `Entities (${t.entities.length})`,
    h('dl', { class: 'entities' }, types.map((type) => [
      h('dt', {}, humanize(type), h('span', { class: 'count' }, byType.get(type).length)),
      h('dd', {}, h('ul', { class: 'chips' }, byType.get(type).map((e) =>
        h('li', {}, h('button', {
          type: 'button', class: 'chip entity-chip', dataset: { type: e.entity_type },
          onclick: () => seek(e.start), 'aria-label': `${e.text}, ${humanize(type)}, at ${clock(e.start)}`,
        }, e.text))))),
    ])));
}

const REDACTED = /^#{2,}|\[[A-Z_]+\]/;

export function isRedactedWord(text) {
  return REDACTED.test(text || '');
}

export function redactionPanel(t, { onRedactedAudio } = {}) {
  if (!t.redact_pii) return null;
  const redacted = (t.words || []).filter((w) => isRedactedWord(w.text)).length;
  const policies = t.redact_pii_policies || [];
  const body = [
    h('p', {}, h('strong', { class: 'redacted-count' }, String(redacted)), ` word${redacted === 1 ? '' : 's'} redacted, replaced by `,
      t.redact_pii_sub === 'entity_name' ? 'entity names such as [PERSON_NAME].' : 'hashes (####).'),
    h('p', { class: 'muted small' }, 'Policies:'),
    h('ul', { class: 'chips' }, policies.map((p) => h('li', { class: 'chip' }, humanize(p)))),
  ];
  if (t.redact_pii_audio) {
    const status = h('p', { class: 'small', 'aria-live': 'polite' });
    const btn = h('button', {
      type: 'button', id: 'redacted-audio', onclick: async () => {
        btn.disabled = true;
        status.textContent = 'Asking for the redacted audio…';
        try {
          status.textContent = await onRedactedAudio();
        } catch (e) {
          status.textContent = `Redacted audio: ${e.message}`;
        } finally {
          btn.disabled = false;
        }
      },
    }, 'Play the redacted audio');
    body.push(h('div', { class: 'actions' }, btn), status);
  }
  return panel('redaction', 'PII redaction', ...body);
}

export function sentimentPanel(t, seek) {
  const r = t.sentiment_analysis_results;
  if (!Array.isArray(r)) return null;
  if (r.length === 0) {
    return t.sentiment_analysis ? panel('sentiment', 'Sentiment', h('p', { class: 'muted' }, 'No sentences were analysed.')) : null;
  }
  const counts = { POSITIVE: 0, NEUTRAL: 0, NEGATIVE: 0 };
  for (const s of r) counts[s.sentiment] = (counts[s.sentiment] || 0) + 1;
  return panel('sentiment', 'Sentiment',
    h('p', { class: 'sentiment-summary' }, ['POSITIVE', 'NEUTRAL', 'NEGATIVE'].map((k) =>
      h('span', { class: `badge sent-${k.toLowerCase()}` }, `${counts[k]} ${k.toLowerCase()}`))),
    h('ol', { class: 'sentences' }, r.map((s) =>
      h('li', { class: `sent-${String(s.sentiment).toLowerCase()}` },
        timeButton(s.start, seek),
        h('span', { class: 'sent-label' }, String(s.sentiment).toLowerCase(), ' ', h('span', { class: 'muted' }, percent(s.confidence))),
        s.speaker ? h('span', { class: 'muted' }, ` · Speaker ${s.speaker}`) : null,
        h('span', { class: 'sent-text' }, s.text)))));
}

export function keyPhrasesPanel(t, seek) {
  const r = t.auto_highlights_result;
  const st = resultState(r);
  if (st === 'none') return null;
  if (st === 'unavailable') return unavailable('key-phrases', 'Key phrases');
  const items = [...(r.results || [])].sort((a, b) => b.rank - a.rank);
  const top = items.length ? Math.max(items[0].rank, 1e-9) : 1; // bars relative to the best phrase
  return panel('key-phrases', 'Key phrases',
    items.length === 0 ? h('p', { class: 'muted' }, 'No key phrases found.') : null,
    h('ul', { class: 'ranked' }, items.map((k) =>
      h('li', {},
        h('span', { class: 'ranked-text' }, k.text),
        h('span', { class: 'muted small' }, `×${k.count}`),
        bar(k.rank / top),
        k.timestamps && k.timestamps[0] ? timeButton(k.timestamps[0].start, seek, k.text) : null))));
}

function labelPath(label) {
  return String(label).split('>').join(' › ');
}

export function topicsPanel(t) {
  const r = t.iab_categories_result;
  const st = resultState(r);
  if (st === 'none') return null;
  if (st === 'unavailable') return unavailable('topics', 'Topics');
  const summary = Object.entries(r.summary || {}).sort((a, b) => b[1] - a[1]).slice(0, 10);
  return panel('topics', 'Topics',
    summary.length === 0 ? h('p', { class: 'muted' }, 'No topics found.') : null,
    h('ul', { class: 'ranked' }, summary.map(([label, rel]) =>
      h('li', {}, h('span', { class: 'ranked-text' }, labelPath(label)), bar(rel), h('span', { class: 'muted small' }, percent(rel))))));
}

export function contentSafetyPanel(t, seek) {
  const r = t.content_safety_labels;
  const st = resultState(r);
  if (st === 'none') return null;
  if (st === 'unavailable') return unavailable('content-safety', 'Content safety');
  const summary = Object.entries(r.summary || {}).sort((a, b) => b[1] - a[1]);
  const results = r.results || [];
  return panel('content-safety', 'Content safety',
    summary.length === 0 ? h('p', { class: 'muted' }, 'Nothing sensitive found.') : null,
    h('ul', { class: 'ranked' }, summary.map(([label, conf]) => {
      const sev = (r.severity_score_summary || {})[label];
      return h('li', {}, h('span', { class: 'ranked-text' }, humanize(label)), bar(conf, 'warn'),
        h('span', { class: 'muted small' }, percent(conf)),
        sev ? h('span', { class: 'muted small severity' }, `low ${percent(sev.low)} · medium ${percent(sev.medium)} · high ${percent(sev.high)}`) : null);
    })),
    results.length ? h('ol', { class: 'sentences' }, results.map((x) =>
      h('li', {},
        x.timestamp ? timeButton(x.timestamp.start, seek) : null,
        h('span', { class: 'sent-text' }, x.text),
        h('span', { class: 'chips' }, (x.labels || []).map((l) =>
          h('span', { class: 'chip warn' }, `${humanize(l.label)} ${percent(l.confidence)}`
            + (l.severity !== null && l.severity !== undefined ? ` · severity ${Number(l.severity).toFixed(2)}` : ''))))))) : null);
}

export function summaryPanel(t) {
  if (typeof t.summary !== 'string' || t.summary === '') return null;
  const lines = t.summary.split('\n').map((s) => s.trim()).filter(Boolean);
  const bullets = lines.length > 0 && lines.every((l) => /^[-•*]\s/.test(l));
  const kind = t.summary_type ? ` (${t.summary_type.replace(/_/g, ' ')})` : '';
  return panel('summary', `Summary${kind}`,
    bullets
      ? h('ul', { class: 'summary' }, lines.map((l) => h('li', {}, l.replace(/^[-•*]\s+/, ''))))
      : lines.map((l) => h('p', { class: 'summary' }, l)));
}

export function chaptersPanel(t, seek) {
  if (!Array.isArray(t.chapters)) return null;
  if (t.chapters.length === 0) return panel('chapters', 'Chapters', h('p', { class: 'muted' }, 'No chapters.'));
  return panel('chapters', `Chapters (${t.chapters.length})`,
    h('ol', { class: 'chapters' }, t.chapters.map((c) =>
      h('li', {},
        h('div', { class: 'chapter-head' }, timeButton(c.start, seek, c.headline), h('strong', {}, c.headline),
          h('span', { class: 'muted small' }, ` ${clock(c.start)}–${clock(c.end)}`)),
        c.gist ? h('p', { class: 'muted' }, c.gist) : null,
        c.summary ? h('p', {}, c.summary) : null))));
}

/** analysisPanels returns the panels this transcript has results for, in reading order. */
export function analysisPanels(t, seek, opts) {
  return [
    summaryPanel(t),
    chaptersPanel(t, seek),
    entitiesPanel(t, seek),
    redactionPanel(t, opts),
    keyPhrasesPanel(t, seek),
    topicsPanel(t),
    sentimentPanel(t, seek),
    contentSafetyPanel(t, seek),
  ].filter(Boolean);
}
