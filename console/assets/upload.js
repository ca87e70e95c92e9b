// Upload: choose features, then drop files (or pick them). Each file is
// sent to POST /v2/upload with a progress bar, submitted to
// POST /v2/transcript with the chosen features, kept in this browser for
// the player, and followed until it completes.

import { api } from './api.js';
import { remember } from './audio-store.js';
import { h, clear, bytes, announce, humanize } from './util.js';
import { statusBadge } from './list.js';

// The 44 PII policies (also the entity types) of the API; console_test.go
// checks this list against transcribe.PIIPolicies.
export const PII_POLICIES = [
  'account_number', 'banking_information', 'blood_type', 'credit_card_cvv', 'credit_card_expiration',
  'credit_card_number', 'date', 'date_interval', 'date_of_birth', 'drivers_license', 'drug', 'duration',
  'email_address', 'event', 'filename', 'gender_sexuality', 'healthcare_number', 'injury', 'ip_address',
  'language', 'location', 'marital_status', 'medical_condition', 'medical_process', 'money_amount',
  'nationality', 'number_sequence', 'occupation', 'organization', 'passport_number', 'password',
  'person_age', 'person_name', 'phone_number', 'physical_attribute', 'political_affiliation', 'religion',
  'statistics', 'time', 'url', 'us_social_security_number', 'username', 'vehicle_id', 'zodiac_sign',
];
const DEFAULT_POLICIES = ['person_name', 'phone_number', 'email_address', 'credit_card_number',
  'us_social_security_number', 'date_of_birth', 'location', 'banking_information'];

const LANGUAGES = [
  ['', 'Detect automatically'], ['en', 'English'], ['en_us', 'English (US)'], ['en_uk', 'English (UK)'],
  ['en_au', 'English (Australia)'], ['es', 'Spanish'], ['fr', 'French'], ['de', 'German'], ['it', 'Italian'],
  ['pt', 'Portuguese'], ['nl', 'Dutch'],
];

const PREFS = 'earshot.features';

// Polled uploads survive navigating away and back.
const jobs = [];

function checkbox(name, label, hint, checked = false) {
  const id = `f-${name}`;
  return h('div', { class: 'check' },
    h('input', { type: 'checkbox', id, name, checked }),
    h('label', { for: id }, label, hint ? h('span', { class: 'hint' }, ` ${hint}`) : null));
}

function field(id, label, control, hint) {
  return h('div', { class: 'field' },
    h('label', { for: id }, label), control, hint ? h('span', { class: 'hint' }, hint) : null);
}

function select(name, options, value) {
  return h('select', { id: `f-${name}`, name },
    options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)));
}

function featuresForm() {
  const chosen = h('span', { class: 'muted' });
  const policies = h('details', { class: 'policies', id: 'pii-policies' },
    h('summary', {}, 'Policies: what to redact ', chosen),
    h('div', { class: 'grid-checks', role: 'group', 'aria-label': 'PII policies' }, PII_POLICIES.map((p) => {
      const id = `pol-${p}`;
      return h('div', { class: 'check' },
        h('input', { type: 'checkbox', id, name: 'policy', value: p, checked: DEFAULT_POLICIES.includes(p) }),
        h('label', { for: id }, humanize(p)));
    })));
  const countPolicies = () => {
    chosen.textContent = `(${policies.querySelectorAll('input:checked').length} chosen)`;
  };
  const form = h('form', { class: 'features', id: 'features', onsubmit: (e) => e.preventDefault() },
    h('fieldset', {},
      h('legend', {}, 'Text'),
      field('f-language_code', 'Language', select('language_code', LANGUAGES, '')),
      checkbox('punctuate', 'Punctuation', null, true),
      checkbox('format_text', 'Formatting', 'casing, numbers, dates', true),
      checkbox('disfluencies', 'Keep filler words', 'um, uh, hmm'),
      checkbox('filter_profanity', 'Mask profanity'),
      field('f-word_boost', 'Word boost', h('input', { id: 'f-word_boost', name: 'word_boost', type: 'text', placeholder: 'Earshot, pocketsphinx, Q3 budget' }),
        'comma-separated words or phrases'),
      field('f-boost_param', 'Boost', select('boost_param', [['', 'default'], ['low', 'low'], ['high', 'high']], ''))),
    h('fieldset', {},
      h('legend', {}, 'Speakers'),
      checkbox('speaker_labels', 'Speaker labels', 'who spoke when'),
      field('f-speakers_expected', 'Speakers expected', h('input', { id: 'f-speakers_expected', name: 'speakers_expected', type: 'number', min: 1, max: 10, placeholder: 'auto' })),
      checkbox('multichannel', 'Multichannel', 'one speaker per channel')),
    h('fieldset', {},
      h('legend', {}, 'Audio intelligence'),
      checkbox('entity_detection', 'Entities', 'names, places, numbers…'),
      checkbox('sentiment_analysis', 'Sentiment', 'per sentence'),
      checkbox('auto_highlights', 'Key phrases'),
      checkbox('iab_categories', 'Topics', 'IAB categories'),
      checkbox('content_safety', 'Content safety'),
      checkbox('summarization', 'Summary'),
      field('f-summary_type', 'Summary type', select('summary_type',
        [['', 'bullets'], ['bullets_verbose', 'bullets (verbose)'], ['gist', 'gist'], ['headline', 'headline'], ['paragraph', 'paragraph']], '')),
      checkbox('auto_chapters', 'Chapters', 'not with summary')),
    h('fieldset', {},
      h('legend', {}, 'PII redaction'),
      checkbox('redact_pii', 'Redact PII in the text'),
      checkbox('redact_pii_audio', 'Also make a redacted copy of the audio'),
      field('f-redact_pii_sub', 'Replace with', select('redact_pii_sub', [['', 'hashes (####)'], ['entity_name', 'entity names ([PERSON_NAME])']], '')),
      policies));
  restorePrefs(form);
  countPolicies();
  form.addEventListener('change', () => {
    savePrefs(form);
    countPolicies();
  });
  return form;
}

function savePrefs(form) {
  const prefs = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.name === 'policy') {
      (prefs.policy ||= []);
      if (el.checked) prefs.policy.push(el.value);
    } else prefs[el.name] = el.type === 'checkbox' ? el.checked : el.value;
  }
  try { localStorage.setItem(PREFS, JSON.stringify(prefs)); } catch { /* storage off */ }
}

function restorePrefs(form) {
  let prefs;
  try { prefs = JSON.parse(localStorage.getItem(PREFS) || 'null'); } catch { prefs = null; }
  if (!prefs) return;
  for (const el of form.elements) {
    if (!el.name || !(el.name in prefs)) continue;
    if (el.name === 'policy') el.checked = prefs.policy.includes(el.value);
    else if (el.type === 'checkbox') el.checked = !!prefs[el.name];
    else el.value = prefs[el.name];
  }
}

/** params reads the form into POST /v2/transcript parameters (only what differs from the defaults). */
export function params(form) {
  const f = form.elements;
  const on = (n) => f[n].checked;
  const p = {};
  if (f.language_code.value) p.language_code = f.language_code.value;
  if (!on('punctuate')) p.punctuate = false;
  if (!on('format_text')) p.format_text = false;
  for (const n of ['disfluencies', 'filter_profanity', 'speaker_labels', 'multichannel', 'entity_detection',
    'sentiment_analysis', 'auto_highlights', 'iab_categories', 'content_safety', 'summarization', 'auto_chapters']) {
    if (on(n)) p[n] = true;
  }
  const boost = f.word_boost.value.split(',').map((s) => s.trim()).filter(Boolean);
  if (boost.length) p.word_boost = boost;
  if (f.boost_param.value) p.boost_param = f.boost_param.value;
  if (on('speaker_labels') && f.speakers_expected.value) p.speakers_expected = parseInt(f.speakers_expected.value, 10);
  if (on('summarization')) {
    p.summary_model = 'informative';
    p.summary_type = f.summary_type.value || 'bullets';
  }
  if (on('redact_pii')) {
    p.redact_pii = true;
    p.redact_pii_policies = [...form.querySelectorAll('input[name=policy]:checked')].map((el) => el.value);
    if (f.redact_pii_sub.value) p.redact_pii_sub = f.redact_pii_sub.value;
    if (on('redact_pii_audio')) p.redact_pii_audio = true;
  }
  return p;
}

/** problems names feature combinations the server would refuse, before anything is uploaded. */
function problems(p) {
  const out = [];
  if (p.auto_chapters && p.summarization) out.push('Chapters and Summary cannot be requested together.');
  if (p.redact_pii && !p.redact_pii_policies.length) out.push('Choose at least one PII policy to redact.');
  if (p.redact_pii && p.format_text === false) out.push('PII redaction needs formatting on.');
  if (p.auto_chapters && p.punctuate === false) out.push('Chapters need punctuation on.');
  if (p.speaker_labels && p.multichannel) out.push('Speaker labels and multichannel are alternatives; pick one.');
  return out;
}

function jobRow(job) {
  const bar = h('progress', { max: 100, value: 0, 'aria-label': `Upload of ${job.file.name}` });
  const pct = h('span', { class: 'pct' }, '0%');
  const status = h('span', { class: 'job-status' }, 'waiting');
  const link = h('span', { class: 'job-link' });
  const cancel = h('button', { type: 'button', class: 'link', onclick: () => job.abort && job.abort() }, 'Cancel');
  const row = h('li', { class: 'job', dataset: { name: job.file.name } },
    h('div', { class: 'job-name' }, h('strong', {}, job.file.name), h('span', { class: 'muted' }, ` ${bytes(job.file.size)}`)),
    h('div', { class: 'job-progress' }, bar, pct),
    h('div', { class: 'job-state' }, status, link, cancel));
  job.ui = { row, bar, pct, status, link, cancel };
  paint(job);
  return row;
}

function paint(job) {
  const u = job.ui;
  if (!u) return;
  u.bar.value = job.progress;
  u.pct.textContent = `${job.progress}%`;
  u.row.dataset.state = job.state;
  u.row.dataset.progressEvents = String(job.progressEvents);
  u.row.dataset.maxPartial = String(job.maxPartial);
  if (job.state === 'uploading') clear(u.status, 'uploading…');
  else if (job.state === 'error') clear(u.status, h('span', { class: 'error', role: 'alert' }, job.error));
  else if (job.transcript) clear(u.status, statusBadge(job.transcript.status));
  else clear(u.status, job.state);
  u.cancel.hidden = job.state !== 'uploading';
  if (job.id) clear(u.link, ' ', h('a', { href: `#/t/${encodeURIComponent(job.id)}`, class: 'open-job' }, 'Open transcript'));
}

async function run(job, p) {
  job.state = 'uploading';
  paint(job);
  const up = api.upload(job.file, (loaded, total) => {
    job.progress = total ? Math.min(100, Math.floor((loaded / total) * 100)) : 0;
    job.progressEvents++;
    if (job.progress > 0 && job.progress < 100) job.maxPartial = Math.max(job.maxPartial, job.progress);
    paint(job);
  });
  job.abort = up.abort;
  try {
    const uploadURL = await up.promise;
    job.progress = 100;
    job.state = 'submitting';
    paint(job);
    const t = await api.submit({ audio_url: uploadURL, ...p });
    job.id = t.id;
    job.transcript = t;
    job.state = 'submitted';
    await remember(t.id, job.file);
    paint(job);
    announce(`${job.file.name} uploaded; transcription ${t.status}`);
    while (job.transcript.status === 'queued' || job.transcript.status === 'processing') {
      await new Promise((r) => setTimeout(r, 1500));
      job.transcript = await api.get(job.id);
      paint(job);
    }
    announce(`${job.file.name}: transcription ${job.transcript.status}`);
  } catch (e) {
    job.state = 'error';
    job.error = job.id ? `Following the transcript failed: ${e.message}` : e.message;
    paint(job);
  }
}

export function uploadView(root) {
  const form = featuresForm();
  const list = h('ul', { class: 'jobs', id: 'jobs', 'aria-live': 'polite' }, jobs.map(jobRow));
  const formError = h('p', { class: 'error', role: 'alert', id: 'features-error' });
  const input = h('input', { type: 'file', id: 'file-input', multiple: true, accept: 'audio/*,video/*', class: 'sr-only' });
  const zone = h('div', { class: 'dropzone', id: 'dropzone' },
    h('div', { class: 'drop-icon', 'aria-hidden': 'true' }, '⇪'),
    h('p', {}, h('strong', {}, 'Drop audio or video files here')),
    h('p', { class: 'muted' }, 'or'),
    h('label', { for: 'file-input', class: 'button' }, 'Choose files…'),
    input,
    h('p', { class: 'muted small' }, 'Each file is uploaded, transcribed with the features chosen above, and kept in this browser so you can play it back.'));

  function start(files) {
    formError.textContent = '';
    const p = params(form);
    const bad = problems(p);
    if (bad.length) {
      formError.textContent = bad.join(' ');
      return;
    }
    for (const file of files) {
      if (!file.size) {
        formError.textContent = `${file.name} is empty.`;
        continue;
      }
      const job = { file, state: 'waiting', progress: 0, progressEvents: 0, maxPartial: 0, id: '', transcript: null, error: '' };
      jobs.unshift(job);
      list.prepend(jobRow(job));
      run(job, p);
    }
  }

  input.addEventListener('change', () => {
    start([...input.files]);
    input.value = '';
  });
  let depth = 0;
  zone.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; zone.classList.add('over'); });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy'; });
  zone.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; zone.classList.remove('over'); } });
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    zone.classList.remove('over');
    const files = [...(e.dataTransfer?.files || [])];
    if (files.length) start(files);
  });

  clear(root,
    h('div', { class: 'view-head' }, h('h1', {}, 'Upload audio')),
    h('div', { class: 'upload-layout' },
      h('section', { class: 'card', 'aria-labelledby': 'features-h' },
        h('h2', { id: 'features-h' }, '1. Choose features'), form, formError),
      h('section', { class: 'card drop-card', 'aria-labelledby': 'drop-h' },
        h('h2', { id: 'drop-h' }, '2. Drop files'), zone, list)));
  // Uploads keep running when the view is left; only their rows go.
  return () => { for (const j of jobs) j.ui = null; };
}
