// Drives the Earshot console in Debian's headless Chromium with
// playwright-core. Run by console/browser_test.go, which starts the
// servers and checks the JSON report this script prints on stdout:
//
//   node run.cjs browser    one browser: the panels on a fixture API
//                           (EARSHOT_FIXTURE_URL, EARSHOT_FIXTURE_KEY), then
//                           end to end on the real server (EARSHOT_URL,
//                           EARSHOT_KEY, EARSHOT_WAV to upload,
//                           EARSHOT_LIVE_WAV for the fake microphone)
//   node run.cjs audio-store  uploaded audio kept in IndexedDB goes when the key
//                           does, on the fixture API (EARSHOT_FIXTURE_URL,
//                           EARSHOT_FIXTURE_KEY, EARSHOT_WAV)
//   node run.cjs resampler  the AudioWorklet's resampler in Node, on test tones
//
// Screenshots go to EARSHOT_SHOTS. The script records what it saw and
// checks what only the browser knows; it exits 1 when a check failed.

'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');

const report = { failures: [], consoleErrors: [], shots: [], phases: {} };
let phaseStart = Date.now();
// phase records how long the steps since the previous call took.
function phase(name) {
  const now = Date.now();
  report.phases[name] = now - phaseStart;
  phaseStart = now;
}
const fail = (msg) => report.failures.push(msg);
const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};

async function launch(extraArgs = []) {
  const { chromium } = require('playwright-core');
  const userData = fs.mkdtempSync(path.join(env('EARSHOT_TMP'), 'chromium-profile-'));
  const ctx = await chromium.launchPersistentContext(userData, {
    executablePath: process.env.EARSHOT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    acceptsDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', ...extraArgs],
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  page.setDefaultTimeout(30_000);
  page.on('console', (m) => {
    if (m.type() === 'error') report.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => fail(`uncaught page error: ${e.message}`));
  page.on('dialog', (d) => d.accept());
  return { ctx, page };
}

async function shot(page, name, opts = {}) {
  const file = path.join(env('EARSHOT_SHOTS'), name);
  await page.screenshot({ path: file, ...opts });
  report.shots.push(file);
}

async function signIn(page, base, key) {
  await page.goto(base);
  await page.waitForSelector('#api-key');
  await page.fill('#api-key', key);
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector('#transcripts');
}

// A drop of a real File carrying the bytes of a file on disk.
async function dropFile(page, selector, file, type) {
  const b64 = fs.readFileSync(file).toString('base64');
  const dt = await page.evaluateHandle(({ b64, name, type }) => {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const d = new DataTransfer();
    d.items.add(new File([bytes], name, { type }));
    return d;
  }, { b64, name: path.basename(file), type });
  await page.dispatchEvent(selector, 'dragenter', { dataTransfer: dt });
  report.dropHighlighted = await page.$eval(selector, (el) => el.classList.contains('over'));
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: dt });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
}

// Plain API calls, outside the console, for the reference data the Go
// test compares the console with (the transcript is deleted at the end).
async function apiText(url, key, p) {
  const res = await fetch(url + p, { headers: { authorization: key } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${p}: ${res.status} ${text}`);
  return text;
}
const api = async (url, key, p) => JSON.parse(await apiText(url, key, p));

const panelsOf = (page) => page.$$eval('[data-panel]', (els) => els.map((e) => e.dataset.panel));

async function e2e(ctx, page) {
  const url = env('EARSHOT_URL');
  const key = env('EARSHOT_KEY');
  const wav = env('EARSHOT_WAV');
  // /console redirects to /console/.
  await page.goto(url + '/console');
  report.redirectedTo = new URL(page.url()).pathname;
  const base = url + '/console/';

  // Sign in: a wrong key is refused with a message, the right one is kept in sessionStorage.
  await page.waitForSelector('#api-key');
  await shot(page, '01-sign-in.png');
  await page.fill('#api-key', 'not-the-key');
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector('#api-key-error:not(:empty)');
  report.wrongKeyMessage = await page.textContent('#api-key-error');
  await page.fill('#api-key', key);
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector('#transcripts');
  report.storedKey = await page.evaluate(() => sessionStorage.getItem('earshot.apiKey'));
  report.localStorageHasKey = await page.evaluate((k) => Object.values({ ...localStorage }).some((v) => v.includes(k)), key);

  phase('sign-in');
  // Upload: features, a refused combination, then a throttled drag-and-drop upload.
  await page.click('nav a[data-nav=upload]');
  await page.waitForSelector('#dropzone');
  for (const f of ['speaker_labels', 'entity_detection', 'redact_pii', 'redact_pii_audio', 'sentiment_analysis', 'auto_highlights',
    'iab_categories', 'content_safety', 'summarization', 'auto_chapters']) {
    await page.check(`#f-${f}`);
  }
  await dropFile(page, '#dropzone', wav, 'audio/wav');
  await page.waitForSelector('#features-error:not(:empty)');
  report.conflictMessage = await page.textContent('#features-error');
  report.jobsAfterConflict = await page.$$eval('#jobs .job', (els) => els.length);
  await page.uncheck('#f-auto_chapters');
  report.submittedParams = await page.evaluate(async () => (await import('./upload.js')).params(document.getElementById('features')));

  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 160 * 1024,
  });
  await dropFile(page, '#dropzone', wav, 'audio/wav');
  const job = '#jobs .job';
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    return el && +el.dataset.maxPartial > 0;
  }, job);
  await page.locator('#dropzone').scrollIntoViewIfNeeded();
  await shot(page, '02-upload-progress.png');
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    return el && (el.dataset.state === 'submitted' || el.dataset.state === 'error');
  }, job, { timeout: 60_000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const jobInfo = await page.$eval(job, (el) => ({ ...el.dataset, status: el.querySelector('.job-status').textContent }));
  report.upload = jobInfo;
  if (jobInfo.state !== 'submitted') throw new Error(`upload failed: ${jobInfo.status}`);
  report.id = await page.$eval('#jobs .open-job', (a) => decodeURIComponent(a.getAttribute('href').replace('#/t/', '')));

  phase('upload');
  // The list shows the transcript's status live until it completes.
  await page.click('nav a[data-nav=transcripts]');
  const row = `#transcripts tr[data-id="${report.id}"]`;
  await page.waitForSelector(row);
  report.listStatuses = [await page.$eval(row, (r) => r.dataset.status)];
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const s = await page.$eval(row, (r) => r.dataset.status).catch(() => '');
    if (s && s !== report.listStatuses[report.listStatuses.length - 1]) report.listStatuses.push(s);
    if (s === 'completed' || s === 'error') break;
    await page.waitForTimeout(200);
  }
  report.listAudio = await page.$eval(`${row} .audio-cell`, (c) => c.textContent);
  await shot(page, '03-list.png');

  phase('transcription');
  // The transcript: words, speakers, panels.
  await page.click(`${row} a.open`);
  await page.waitForSelector('#words .w');
  report.apiTranscript = await apiText(url, key, `/v2/transcript/${report.id}`);
  report.apiSRT = await apiText(url, key, `/v2/transcript/${report.id}/srt`);
  const t = JSON.parse(report.apiTranscript);
  report.words = await page.$$eval('#words .w', (els) => els.map((e) => [+e.dataset.i, e.textContent]));
  report.speakers = await page.$$eval('.legend li', (els) => els.map((e) => e.textContent.trim()));
  report.blockSpeakers = await page.$$eval('#words .block', (els) => els.map((e) => e.dataset.speaker));
  report.panels = await panelsOf(page);
  report.entityChips = await page.$$eval('[data-panel=entities] .entity-chip', (els) => els.map((e) => e.textContent));
  report.redactedCount = await page.$eval('[data-panel=redaction] .redacted-count', (e) => +e.textContent).catch(() => -1);
  report.audioSource = await page.$eval('#player', (a) => a.dataset.source || '');
  report.audioNote = await page.textContent('#audio-note');

  phase('open');
  // Play: the highlighted word follows the audio.
  await page.evaluate(() => document.getElementById('player').play());
  report.playback = [];
  const end = Math.min(t.audio_duration || 4, 4) * 1000;
  let shotTaken = false;
  for (let i = 0; i < 80; i++) {
    const s = await page.evaluate(() => {
      const a = document.getElementById('player');
      return [Math.round(a.currentTime * 1000), +(document.getElementById('words').dataset.current ?? -1)];
    });
    report.playback.push(s);
    if (s[0] > end) break;
    if (!shotTaken && s[0] > 2200 && s[1] >= 0) {
      await shot(page, '04-playing.png');
      shotTaken = true;
    }
    await page.waitForTimeout(100);
  }
  if (!shotTaken) await shot(page, '04-playing.png');
  await page.evaluate(() => document.getElementById('player').pause());

  // Click a word in the second half: the player seeks to it and marks it.
  const target = report.words[Math.floor(report.words.length * 0.6)][0];
  await page.click(`#words .w[data-i="${target}"]`);
  await page.waitForTimeout(300);
  report.seek = await page.evaluate((i) => ({
    index: i,
    time: Math.round(document.getElementById('player').currentTime * 1000),
    current: +document.getElementById('words').dataset.current,
  }), target);
  // Keyboard: the clicked word has focus; ArrowRight then Enter plays from the next word.
  await page.keyboard.press('ArrowRight');
  report.keyboardFocus = await page.evaluate(() => +document.activeElement.dataset.i);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(150);
  report.keyboardPlay = await page.evaluate(() => ({
    time: Math.round(document.getElementById('player').currentTime * 1000),
    paused: document.getElementById('player').paused,
  }));
  await page.evaluate(() => document.getElementById('player').pause());

  phase('play-seek');
  // Exports: SRT and text through real downloads.
  for (const [btn, keyName] of [['#export-srt', 'srt'], ['#export-txt', 'txt']]) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(btn)]);
    const file = await dl.path();
    report[keyName] = fs.readFileSync(file, 'utf8');
    report[`${keyName}Name`] = dl.suggestedFilename();
  }

  // Word search for the first plain word of four letters or more.
  const term = (t.words || []).map((w) => w.text.toLowerCase().replace(/[^a-z']/g, '')).find((w) => w.length >= 4) || '';
  report.searchTerm = term;
  report.apiSearch = await api(url, key, `/v2/transcript/${report.id}/word-search?words=${encodeURIComponent(term)}`);
  await page.fill('#search-words', term);
  await page.press('#search-words', 'Enter');
  await page.waitForSelector('#search-results .search-total');
  report.searchTotal = await page.textContent('#search-results .search-total');
  report.searchHits = await page.$$eval('#words .w.hit', (els) => els.map((e) => +e.dataset.i));
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, '05-search.png');

  // The redacted copy of the audio, from the redaction panel.
  await page.click('#redacted-audio');
  await page.waitForFunction(() => {
    const a = document.getElementById('player');
    return a.dataset.source === 'remote' && (a.readyState >= 1 || a.error);
  });
  report.redactedAudio = await page.$eval('#player', (a) => ({
    src: a.getAttribute('src'), duration: a.duration, error: a.error ? a.error.message || String(a.error.code) : '',
  }));

  phase('export-search');
  // Live: the fake microphone plays EARSHOT_LIVE_WAV in a loop. The
  // WebSocket's frames are recorded as the browser sent and received them.
  report.ws = { url: '', sent: [], received: [], turns: [], closed: false, tokenRequests: [] };
  const pcm = [];
  const onRequest = (req) => {
    const u = new URL(req.url());
    if (u.pathname.endsWith('/token')) {
      report.ws.tokenRequests.push({ method: req.method(), path: u.pathname + u.search, hasKey: req.headers().authorization === key });
    }
  };
  page.on('request', onRequest);
  page.on('websocket', (ws) => {
    report.ws.url = ws.url();
    ws.on('framesent', (f) => {
      if (typeof f.payload === 'string') report.ws.sent.push(f.payload);
      else {
        report.ws.sent.push(f.payload.length);
        pcm.push(f.payload);
      }
    });
    ws.on('framereceived', (f) => {
      let m;
      try { m = JSON.parse(f.payload); } catch { report.ws.received.push('?'); return; }
      report.ws.received.push(m.type || m.message_type || '?');
      if (m.type === 'Turn') {
        report.ws.turns.push({
          order: m.turn_order, end: m.end_of_turn, formatted: m.turn_is_formatted, transcript: m.transcript,
          words: (m.words || []).length, final: (m.words || []).filter((w) => w.word_is_final).length,
          confidence: m.end_of_turn_confidence,
        });
      }
    });
    ws.on('close', () => { report.ws.closed = true; });
  });
  await page.click('nav a[data-nav=live]');
  await page.click('#live-start');
  await page.evaluate(() => {
    window.__partials = [];
    const p = document.getElementById('live-partial');
    new MutationObserver(() => { if (p.textContent) window.__partials.push(p.textContent); })
      .observe(p, { childList: true, characterData: true, subtree: true });
  });
  await page.waitForFunction(() => {
    const v = document.getElementById('live');
    return +v.dataset.formatted >= 1 && +v.dataset.partials >= 1;
  }, null, { timeout: 45_000 }).catch((e) => fail(`live: no partial and formatted turn in 45 s (${e.message})`));
  await shot(page, '06-live.png');
  await page.click('#live-stop');
  await page.waitForFunction(() => document.getElementById('live').dataset.state === 'ended', null, { timeout: 30_000 })
    .catch((e) => fail(`live: the session did not end after Stop (${e.message})`));
  report.ws.pcm = Buffer.concat(pcm).toString('base64');
  report.live = await page.evaluate(() => ({
    partials: window.__partials,
    finals: [...document.querySelectorAll('#live-finals li')].map((li) => li.dataset.text),
    formatted: [...document.querySelectorAll('#live-finals li')].map((li) => li.dataset.formatted === 'true'),
    status: document.getElementById('live-status').textContent,
    error: document.getElementById('live-error').textContent,
  }));

  page.off('request', onRequest);
  phase('live');
  // Delete from the transcript view.
  await page.goto(`${base}#/t/${encodeURIComponent(report.id)}`);
  await page.click('#delete-transcript');
  await page.waitForSelector('#transcripts');
  await page.waitForTimeout(300);
  report.listedAfterDelete = await page.$$eval('#transcripts tr[data-id]', (els) => els.map((e) => e.dataset.id));
  phase('delete');
}

async function panels(page) {
  const url = env('EARSHOT_FIXTURE_URL');
  const key = env('EARSHOT_FIXTURE_KEY');
  await signIn(page, url + '/console/', key);

  // Paging: 10 per page, Older follows prev_url (absolute, on another origin), Newer goes back.
  const ids = () => page.$$eval('#transcripts tr[data-id]', (els) => els.map((e) => e.dataset.id));
  await page.waitForSelector('#transcripts tr[data-id]');
  report.page1 = await ids();
  await page.click('#page-older');
  await page.waitForFunction(() => document.querySelectorAll('#transcripts tr[data-id]').length < 10);
  report.page2 = await ids();
  report.olderDisabled = await page.$eval('#page-older', (b) => b.disabled);
  await page.click('#page-newer');
  await page.waitForFunction(() => document.querySelectorAll('#transcripts tr[data-id]').length === 10);
  report.page1Again = await ids();

  report.views = {};
  for (const id of ['fixture-full', 'fixture-null']) {
    await page.goto(`${url}/console/#/t/${id}`);
    await page.waitForSelector('#words .w');
    const v = {};
    v.panels = await panelsOf(page);
    v.noAudioVisible = await page.$eval('#no-audio', (e) => !e.hidden);
    v.audioSrc = await page.$eval('#player', (a) => a.getAttribute('src') || '');
    if (v.audioSrc) {
      await page.waitForFunction(() => document.getElementById('player').readyState >= 1).catch(() => {});
    }
    v.audioDuration = await page.$eval('#player', (a) => a.duration || 0);
    v.blocks = await page.$$eval('#words .block', (els) => els.length);
    v.entityTypes = await page.$$eval('[data-panel=entities] dt', (els) => els.map((e) => e.firstChild.textContent));
    v.entityChips = await page.$$eval('[data-panel=entities] .entity-chip', (els) => els.map((e) => e.textContent));
    v.sentiments = await page.$$eval('[data-panel=sentiment] .sentences li', (els) => els.map((e) => e.className));
    v.keyPhrases = await page.$$eval('[data-panel=key-phrases] .ranked-text', (els) => els.map((e) => e.textContent));
    v.topics = await page.$$eval('[data-panel=topics] .ranked-text', (els) => els.map((e) => e.textContent));
    v.safetyLabels = await page.$$eval('[data-panel=content-safety] .ranked .ranked-text', (els) => els.map((e) => e.textContent));
    v.safetyResults = await page.$$eval('[data-panel=content-safety] .sentences li', (els) => els.length);
    v.summary = await page.$$eval('[data-panel=summary] li, [data-panel=summary] p.summary', (els) => els.map((e) => e.textContent));
    v.chapters = await page.$$eval('[data-panel=chapters] .chapters strong', (els) => els.map((e) => e.textContent));
    v.redactedCount = await page.$eval('[data-panel=redaction] .redacted-count', (e) => +e.textContent).catch(() => -1);
    v.unavailable = await page.$$eval('.panel .unavailable', (els) => els.map((e) => e.closest('[data-panel]').dataset.panel));
    v.speakers = await page.$$eval('.legend li', (els) => els.map((e) => e.textContent.trim()));
    v.speakerColours = await page.$$eval('#words .block', (els) => els.map((e) => getComputedStyle(e).borderLeftColor));
    v.entityWords = await page.$$eval('#words .w.entity', (els) => els.map((e) => e.textContent));
    if (id === 'fixture-full') {
      // A click on a chapter's time with no audio still marks the word; the note says why nothing plays.
      await page.click('[data-panel=chapters] button.ts >> nth=1');
      v.currentAfterChapterClick = await page.$eval('#words', (e) => +e.dataset.current);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, 'panels.png', { fullPage: true });
    }
    report.views[id] = v;
  }
}

// storedAudio counts the console's IndexedDB entries of uploaded audio
// (after waiting up to ms for the count to reach want).
async function storedAudio(page, want, ms = 3000) {
  const count = () => page.evaluate(() => new Promise((resolve) => {
    const req = indexedDB.open('earshot-console');
    req.onerror = () => resolve(-1);
    req.onsuccess = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('audio')) { db.close(); resolve(0); return; }
      const c = db.transaction('audio').objectStore('audio').count();
      c.onsuccess = () => { db.close(); resolve(c.result); };
      c.onerror = () => { db.close(); resolve(-1); };
    };
  }));
  const end = Date.now() + ms;
  let n = await count();
  while (n !== want && Date.now() < end) {
    await page.waitForTimeout(100);
    n = await count();
  }
  return n;
}

// upload drops the WAV on the upload page and waits until it is submitted.
async function upload(page, base, wav) {
  await page.goto(`${base}#/upload`);
  await page.waitForSelector('#dropzone');
  // Jobs stay listed on the page: wait for one more to be submitted.
  const done = () => [...document.querySelectorAll('#jobs .job')].filter((el) => el.dataset.state === 'submitted' || el.dataset.state === 'error').length;
  const before = await page.evaluate(done);
  await dropFile(page, '#dropzone', wav, 'audio/wav');
  await page.waitForFunction((before) => [...document.querySelectorAll('#jobs .job')]
    .filter((el) => el.dataset.state === 'submitted' || el.dataset.state === 'error').length > before, before);
  return storedAudio(page, 1);
}

// audioStore: what happens to uploaded audio kept in IndexedDB when the
// key goes, when another sign-in comes, when the key is refused and when
// it is a day old.
async function audioStore(ctx, page) {
  const url = env('EARSHOT_FIXTURE_URL');
  const key = env('EARSHOT_FIXTURE_KEY');
  const wav = env('EARSHOT_WAV');
  const base = url + '/console/';
  const r = (report.audioStore = {});
  await signIn(page, base, key);

  r.afterUpload = await upload(page, base, wav);
  await page.click('#forget-key');
  await page.waitForSelector('#api-key');
  r.afterForgetKey = await storedAudio(page, 0);

  // A new tab has no key (sessionStorage): a refused sign-in there drops
  // what the first tab stored, and so does a successful one.
  await signIn(page, base, key);
  r.beforeOtherTab = await upload(page, base, wav);
  const other = await ctx.newPage();
  await other.goto(base);
  await other.waitForSelector('#api-key');
  r.otherTabHasKey = await other.evaluate(() => !!sessionStorage.getItem('earshot.apiKey'));
  await other.fill('#api-key', 'not-the-key');
  await other.click('#key-form button[type=submit]');
  await other.waitForSelector('#api-key-error:not(:empty)');
  r.afterRefusedSignIn = await storedAudio(other, 0);
  r.beforeNewSignIn = await upload(page, base, wav);
  await other.fill('#api-key', key);
  await other.click('#key-form button[type=submit]');
  await other.waitForSelector('#transcripts');
  r.afterNewSignIn = await storedAudio(other, 0);
  await other.close();

  // The server refuses the key in use (revoked): its audio goes.
  r.beforeRevoked = await upload(page, base, wav);
  await page.evaluate(() => sessionStorage.setItem('earshot.apiKey', 'revoked-key'));
  await page.goto(`${base}#/transcripts`);
  await page.reload();
  r.afterRevoked = await storedAudio(page, 0);
  await page.evaluate((k) => sessionStorage.setItem('earshot.apiKey', k), key);

  // A day later (the page's clock 25 hours on), a reload prunes it; the key
  // is still in this tab.
  await page.reload();
  await page.waitForSelector('#transcripts');
  r.beforeExpiry = await upload(page, base, wav);
  await page.clock.install({ time: Date.now() + 25 * 60 * 60 * 1000 });
  await page.goto(`${base}#/transcripts`);
  await page.reload();
  await page.waitForSelector('#transcripts');
  r.keyAfterExpiry = await page.evaluate(() => !!sessionStorage.getItem('earshot.apiKey'));
  r.afterExpiry = await storedAudio(page, 0);
}

// The worklet's resampler outside a browser: the AudioWorklet globals are
// stubbed, tones go in at the context rate, 16 kHz PCM16 comes out.
async function resampler() {
  const src = fs.readFileSync(path.join(__dirname, '..', 'assets', 'live-worklet.js'), 'utf8');
  report.cases = [];
  for (const [rate, freq] of [[48000, 440], [48000, 1000], [48000, 12000], [44100, 440], [44100, 11000], [16000, 440]]) {
    let Proc;
    const posted = [];
    const sandbox = {
      sampleRate: rate,
      AudioWorkletProcessor: class { constructor() { this.port = { postMessage: (m) => posted.push(m), onmessage: null }; } },
      registerProcessor: (name, cls) => { Proc = cls; },
    };
    vm.runInNewContext(src, sandbox);
    const p = new Proc({ processorOptions: { targetRate: 16000, chunkSamples: 1600 } });
    const secs = 2;
    const amp = 0.5;
    for (let n = 0; n < rate * secs; n += 128) {
      const block = new Float32Array(128);
      for (let i = 0; i < 128; i++) block[i] = amp * Math.sin((2 * Math.PI * freq * (n + i)) / rate);
      p.process([[block, block]]); // stereo in: mixed down
    }
    p.port.onmessage({ data: 'flush' });
    const chunks = posted.filter((m) => m.pcm).map((m) => new Int16Array(m.pcm));
    const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((at, c) => { out.set(c, at); return at + c.length; }, 0);
    // Skip the first and last 0.1 s (filter warm-up and tail).
    const mid = out.slice(1600, out.length - 1600);
    let sq = 0;
    let crossings = 0;
    for (let i = 0; i < mid.length; i++) {
      const v = mid[i] / 32768;
      sq += v * v;
      if (i > 0 && (mid[i - 1] < 0) !== (mid[i] < 0)) crossings++;
    }
    const rms = Math.sqrt(sq / mid.length);
    report.cases.push({
      rate, freq,
      samples: out.length,
      chunkSizes: [...new Set(chunks.slice(0, -1).map((c) => c.length))],
      flushed: posted.some((m) => m.flushed),
      gainDb: 20 * Math.log10(rms / (amp / Math.SQRT2)),
      estimatedFreq: (crossings / 2) / (mid.length / 16000),
    });
  }
}

(async () => {
  const scenario = process.argv[2];
  const t0 = Date.now();
  try {
    if (scenario === 'browser') {
      // One browser for both: its start is the slowest step on a busy machine.
      const { ctx, page } = await launch([
        '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${env('EARSHOT_LIVE_WAV')}`, '--autoplay-policy=no-user-gesture-required',
      ]);
      try {
        phase('launch');
        await panels(page);
        phase('panels');
        await e2e(ctx, page);
      } finally {
        await ctx.close();
      }
    } else if (scenario === 'audio-store') {
      const { ctx, page } = await launch();
      try {
        await audioStore(ctx, page);
      } finally {
        await ctx.close();
      }
    } else if (scenario === 'resampler') await resampler();
    else throw new Error(`unknown scenario ${scenario}`);
  } catch (e) {
    report.fatal = String(e && e.stack || e);
  }
  report.elapsedMs = Date.now() - t0;
  // Exit once the (large) report is flushed to the pipe.
  process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(report.fatal || report.failures.length ? 1 : 0));
})();
