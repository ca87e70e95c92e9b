// Live: streams the microphone to /v2/realtime/ws. The API key mints a
// temporary token (POST /v2/realtime/token) and only the token goes into
// the WebSocket URL. Audio runs through an AudioWorklet (live-worklet.js)
// that resamples it to 16 kHz PCM16 and sends 150 ms binary frames.
// PartialTranscript text replaces the line in progress; FinalTranscript
// text is appended. Stop sends {"terminate_session": true} and waits for
// SessionTerminated.

import { api } from './api.js';
import { h, clear, clock, download, announce } from './util.js';

const RATE = 16000;
const CHUNK = 2400; // 150 ms at 16 kHz

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
  const counts = { partials: 0, finals: 0 };
  const view = h('div', { id: 'live', dataset: { state: 'idle', partials: '0', finals: '0' } });

  function setState(s, msg) {
    view.dataset.state = s;
    if (msg) status.textContent = msg;
    const busy = s === 'starting' || s === 'listening' || s === 'stopping';
    startBtn.disabled = busy;
    stopBtn.disabled = s !== 'listening';
    boost.disabled = busy;
    processing.disabled = busy;
  }

  function onMessage(m) {
    if (m.error) {
      error.textContent = `Server: ${m.error}`;
      return;
    }
    switch (m.message_type) {
      case 'SessionBegins':
        session.began = true;
        for (const b of session.queue) session.ws.send(b);
        session.queue = [];
        setState('listening', 'Listening… speak now.');
        announce('Listening');
        break;
      case 'PartialTranscript':
        if (m.text) {
          partial.textContent = m.text;
          view.dataset.partials = String(++counts.partials);
        }
        break;
      case 'FinalTranscript':
        partial.textContent = '';
        if (m.text) {
          finals.append(h('li', { dataset: { at: clock(m.audio_start), text: m.text } },
            h('span', { class: 'ts' }, clock(m.audio_start)), ' ', m.text));
          view.dataset.finals = String(++counts.finals);
          finals.lastChild.scrollIntoView({ block: 'nearest' });
        }
        break;
      case 'SessionInformation':
        session.audioSeconds = m.audio_duration_seconds;
        break;
      case 'SessionTerminated':
        session.terminated = true;
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
    setState('starting', 'Getting a temporary token…');
    const s = {
      ws: null, ctx: null, stream: null, node: null, began: false, queue: [], terminated: false,
      audioSeconds: null, closed: null, flushed: false,
    };
    session = s;
    try {
      const { token } = await api.realtimeToken(600);
      status.textContent = 'Asking for the microphone…';
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

      const q = new URLSearchParams({ sample_rate: String(RATE), token });
      const words = boost.value.split(',').map((w) => w.trim()).filter(Boolean);
      if (words.length) q.set('word_boost', JSON.stringify(words));
      const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
      s.ws = new WebSocket(`${scheme}//${location.host}/v2/realtime/ws?${q}`);
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
      s.ws.send(JSON.stringify({ terminate_session: true }));
      const done = await Promise.race([s.closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
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
      s.ws.send(JSON.stringify({ terminate_session: true }));
      setTimeout(() => s.ws.close(1000), 2000);
    } else if (s.ws) s.ws.close();
    teardown(s);
  };
}
