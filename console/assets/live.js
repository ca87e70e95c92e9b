// Live: streams the microphone over Universal-Streaming (v3, /v3/ws). The
// API key mints a single-use temporary token (GET /v3/token) and only the
// token goes into the WebSocket URL, with sample_rate=16000,
// encoding=pcm_s16le and format_turns=true. Audio runs through an
// AudioWorklet (live-worklet.js) that resamples it to 16 kHz PCM16 and
// sends 100 ms binary frames (v3 takes 50-1000 ms). A Turn that is still
// open (end_of_turn false) replaces the line in progress with its words;
// an ended turn is appended, and replaced by its formatted copy
// (turn_is_formatted) when that follows. Stop sends {"type": "Terminate"}
// and waits for Termination.

import { api } from './api.js';
import { h, clear, clock, download, announce } from './util.js';

const RATE = 16000;
const CHUNK = 1600; // 100 ms at 16 kHz

export function liveView(root) {
  let session = null;

  const status = h('p', { id: 'live-status', class: 'live-status', 'aria-live': 'polite' }, 'Not listening.');
  const error = h('p', { id: 'live-error', class: 'error', role: 'alert' });
  const meter = h('meter', { id: 'live-level', min: 0, max: 1, low: 0.1, high: 0.6, optimum: 0.3, value: 0, 'aria-label': 'Microphone level' });
  const finals = h('ol', { id: 'live-finals', class: 'live-finals' });
  const partial = h('p', { id: 'live-partial', class: 'partial', 'aria-live': 'off' });
  const boost = h('input', { id: 'live-boost', type: 'text', placeholder: 'optional: words to favour, comma-separated' });
  // Off by default: the recognizer does better on the raw signal (see doc.go).
  const processing = h('input', { id: 'live-processing', type: 'checkbox', checked: false });
  const startBtn = h('button', { type: 'button', class: 'primary', id: 'live-start', onclick: () => start() }, '● Start');
  const stopBtn = h('button', { type: 'button', id: 'live-stop', disabled: true, onclick: () => stop() }, '■ Stop');
  const saveBtn = h('button', {
    type: 'button', id: 'live-save', onclick: () => {
      const lines = [...finals.querySelectorAll('li')].map((li) => `[${li.dataset.at}] ${li.dataset.text}`);
      download(new Blob([lines.join('\n') + '\n'], { type: 'text/plain' }), 'live-transcript.txt');
    },
  }, 'Save text');
  const clearBtn = h('button', { type: 'button', class: 'link', onclick: () => { clear(finals); partial.textContent = ''; } }, 'Clear');
  const counts = { partials: 0, finals: 0, formatted: 0 };
  const view = h('div', { id: 'live', dataset: { state: 'idle', partials: '0', finals: '0', formatted: '0' } });

  function setState(s, msg) {
    view.dataset.state = s;
    if (msg) status.textContent = msg;
    const busy = s === 'starting' || s === 'listening' || s === 'stopping';
    startBtn.disabled = busy;
    stopBtn.disabled = s !== 'listening';
    boost.disabled = busy;
    processing.disabled = busy;
  }

  // showTurn appends an ended turn, or replaces the line of the same
  // turn_order (the unformatted copy) with its formatted one.
  function showTurn(m) {
    const text = m.transcript || '';
    const at = clock(m.words && m.words.length ? m.words[0].start : 0);
    const li = h('li', { dataset: { at, text, turn: String(m.turn_order), formatted: String(!!m.turn_is_formatted) } },
      h('span', { class: 'ts' }, at), ' ', text);
    const old = finals.querySelector(`li[data-turn="${m.turn_order}"]`);
    if (old) old.replaceWith(li);
    else {
      if (!text) return;
      finals.append(li);
      view.dataset.finals = String(++counts.finals);
    }
    if (m.turn_is_formatted) view.dataset.formatted = String(++counts.formatted);
    li.scrollIntoView({ block: 'nearest' });
  }

  function onMessage(m) {
    switch (m.type) {
      case 'Begin':
        session.began = true;
        for (const b of session.queue) session.ws.send(b);
        session.queue = [];
        setState('listening', 'Listening… speak now.');
        announce('Listening');
        break;
      case 'Turn':
        if (!m.end_of_turn) {
          // The words so far, final or not: the final ones alone are m.transcript.
          const text = (m.words || []).map((w) => w.text).join(' ');
          if (text) {
            partial.textContent = text;
            view.dataset.partials = String(++counts.partials);
          }
          break;
        }
        partial.textContent = '';
        showTurn(m);
        break;
      case 'Termination':
        session.audioSeconds = m.audio_duration_seconds;
        session.terminated = true;
        break;
      case 'Error':
        error.textContent = `Server: ${m.error}`;
        break;
      case 'Warning':
        status.textContent = `Server warning: ${m.warning}`;
        break;
      default:
    }
  }

  async function start() {
    error.textContent = '';
    if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      error.textContent = 'The microphone needs a secure page: open the console over HTTPS, or on localhost / 127.0.0.1.';
      return;
    }
    setState('starting', 'Asking for the microphone…');
    const s = {
      ws: null, ctx: null, stream: null, node: null, began: false, queue: [], terminated: false,
      audioSeconds: null, closed: null, flushed: false,
    };
    session = s;
    try {
      const proc = processing.checked;
      s.stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: proc, noiseSuppression: proc, autoGainControl: proc },
      });
      s.ctx = new AudioContext();
      await s.ctx.audioWorklet.addModule('live-worklet.js');
      const source = s.ctx.createMediaStreamSource(s.stream);
      s.node = new AudioWorkletNode(s.ctx, 'earshot-pcm16', {
        numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
        processorOptions: { targetRate: RATE, chunkSamples: CHUNK },
      });
      const mute = s.ctx.createGain();
      mute.gain.value = 0; // keeps the graph pulling without playing the microphone back
      source.connect(s.node).connect(mute).connect(s.ctx.destination);

      // The token is made once the microphone is granted: it is valid for
      // 60 s and opens one session.
      status.textContent = 'Getting a temporary token…';
      const { token } = await api.streamingToken(60);
      const q = new URLSearchParams({ sample_rate: String(RATE), encoding: 'pcm_s16le', format_turns: 'true' });
      const words = boost.value.split(',').map((w) => w.trim()).filter(Boolean);
      if (words.length) q.set('keyterms_prompt', JSON.stringify(words));
      q.set('token', token);
      const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
      s.ws = new WebSocket(`${scheme}//${location.host}/v3/ws?${q}`);
      s.ws.binaryType = 'arraybuffer';
      s.closed = new Promise((resolve) => s.ws.addEventListener('close', resolve));
      s.ws.addEventListener('message', (e) => {
        let m;
        try { m = JSON.parse(e.data); } catch { return; }
        if (session === s) onMessage(m);
      });
      s.ws.addEventListener('close', (e) => {
        if (session !== s) return;
        if (!s.terminated && e.code !== 1000) {
          error.textContent = `The connection closed: ${e.code} ${e.reason || ''}`.trim();
        }
        teardown(s);
        const secs = s.audioSeconds !== null ? ` ${s.audioSeconds.toFixed(1)} s of audio transcribed.` : '';
        setState('ended', `Session ended.${secs}`);
        session = null;
      });
      s.node.port.onmessage = ({ data }) => {
        if (data.level !== undefined) meter.value = Math.min(1, data.level * 4);
        if (!data.pcm || s.flushed || !s.ws || s.ws.readyState !== WebSocket.OPEN) return;
        if (s.began) s.ws.send(data.pcm);
        else s.queue.push(data.pcm);
      };
      status.textContent = 'Connecting…';
    } catch (e) {
      teardown(s);
      session = null;
      const msg = e.name === 'NotAllowedError' ? 'Microphone access was refused.'
        : e.name === 'NotFoundError' ? 'No microphone was found.' : e.message;
      error.textContent = `Could not start: ${msg}`;
      setState('idle', 'Not listening.');
    }
  }

  function teardown(s) {
    if (s.stream) for (const tr of s.stream.getTracks()) tr.stop();
    if (s.node) s.node.port.postMessage('stop');
    if (s.ctx && s.ctx.state !== 'closed') s.ctx.close().catch(() => {});
    meter.value = 0;
  }

  async function stop() {
    const s = session;
    if (!s) return;
    setState('stopping', 'Finishing the last words…');
    if (s.stream) for (const tr of s.stream.getTracks()) tr.stop();
    // Send what the worklet still holds, then end the session.
    await new Promise((resolve) => {
      const t = setTimeout(resolve, 500);
      s.node.port.addEventListener('message', (e) => { if (e.data.flushed) { s.flushed = true; clearTimeout(t); resolve(); } });
      s.node.port.postMessage('flush');
    });
    if (s.ws.readyState === WebSocket.OPEN) {
      s.ws.send(JSON.stringify({ type: 'Terminate' }));
      // The server answers Terminate with the last turns and Termination
      // once its recognizer has finished the audio it holds: seconds on a
      // busy machine, so the wait is long before the socket is closed
      // without them (5 s lost them once under a load of 8 on 2 cores).
      const done = await Promise.race([s.closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 15000))]);
      if (!done) s.ws.close(1000);
    } else {
      s.ws.close();
    }
  }

  clear(root,
    view,
  );
  clear(view,
    h('div', { class: 'view-head' }, h('h1', {}, 'Live transcription')),
    h('div', { class: 'live-layout' },
      h('section', { class: 'card', 'aria-labelledby': 'live-h' },
        h('h2', { id: 'live-h' }, 'Microphone'),
        h('p', { class: 'muted' }, 'Your microphone is streamed to this server, which answers with the words as they are recognized. ',
          'A temporary token is made from your key for the connection.'),
        h('div', { class: 'field' }, h('label', { for: 'live-boost' }, 'Word boost'), boost),
        h('div', { class: 'check' }, processing, h('label', { for: 'live-processing' }, 'Clean up the audio (echo cancellation, noise suppression, automatic gain)')),
        h('div', { class: 'actions' }, startBtn, stopBtn),
        h('div', { class: 'meter-row' }, h('label', { for: 'live-level' }, 'Level'), meter),
        status, error),
      h('section', { class: 'card live-text', 'aria-labelledby': 'live-text-h' },
        h('div', { class: 'card-head' }, h('h2', { id: 'live-text-h' }, 'Transcript'), h('span', { class: 'spacer' }), saveBtn, clearBtn),
        finals, partial)));

  return () => {
    const s = session;
    session = null;
    if (!s) return;
    if (s.ws && s.ws.readyState === WebSocket.OPEN) {
      s.ws.send(JSON.stringify({ type: 'Terminate' }));
      setTimeout(() => s.ws.close(1000), 2000);
    } else if (s.ws) s.ws.close();
    teardown(s);
  };
}
