// AudioWorklet processor for the live page: mixes the microphone down to
// mono, resamples it from the AudioContext's rate (typically 48 kHz) to
// 16 kHz with a windowed-sinc low-pass (Blackman window, cutoff just under
// the new Nyquist frequency, so nothing above 8 kHz folds back into the
// speech band), and posts PCM16 little-endian chunks of chunkSamples
// samples (100 ms by default; Universal-Streaming takes 50-1000 ms frames)
// to the page, with the chunk's RMS level for the meter.
//
// Messages from the page: "flush" posts what is buffered as a last,
// shorter chunk (the server accepts one before Terminate), then
// {flushed: true}, and ends processing; "stop" ends it without a flush.

const PHASES = 1024;

class PCM16Processor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const o = (options && options.processorOptions) || {};
    this.target = o.targetRate || 16000;
    this.chunk = o.chunkSamples || Math.round(this.target * 0.1);
    this.ratio = sampleRate / this.target; // input samples per output sample
    // Cutoff in cycles per input sample: 92% of the lower Nyquist rate.
    this.fc = 0.46 * Math.min(1, 1 / this.ratio);
    this.half = this.ratio === 1 ? 0 : Math.ceil(8 / (2 * this.fc)); // 8 zero crossings each side
    this.kernels = new Array(PHASES);
    this.buf = new Float32Array(8192);
    this.bufStart = 0; // absolute input index of buf[0]
    this.bufLen = 0;
    this.pos = 0; // absolute input position of the next output sample
    this.out = new Int16Array(this.chunk);
    this.n = 0;
    this.sumSq = 0;
    this.running = true;
    this.port.onmessage = (e) => {
      if (e.data === 'flush') {
        this.post();
        this.running = false; // the last chunk: nothing follows it
        this.port.postMessage({ flushed: true });
      } else if (e.data === 'stop') {
        this.running = false;
      }
    };
  }

  append(x) {
    // Drop input no output sample still needs.
    const keepFrom = Math.floor(this.pos) - this.half - 1;
    if (keepFrom > this.bufStart) {
      const drop = Math.min(keepFrom - this.bufStart, this.bufLen);
      this.buf.copyWithin(0, drop, this.bufLen);
      this.bufLen -= drop;
      this.bufStart += drop;
    }
    if (this.bufLen + x.length > this.buf.length) {
      const bigger = new Float32Array(Math.max(this.buf.length * 2, this.bufLen + x.length));
      bigger.set(this.buf.subarray(0, this.bufLen));
      this.buf = bigger;
    }
    this.buf.set(x, this.bufLen);
    this.bufLen += x.length;
  }

  // kernel returns the filter taps for output position base + q/PHASES,
  // for input offsets -half..half, normalized to unity gain at DC. Taps
  // are cached per phase (1/1024 of an input sample apart; the timing
  // error that leaves is far below 16-bit resolution).
  kernel(q) {
    let k = this.kernels[q];
    if (k) return k;
    const half = this.half;
    k = new Float32Array(2 * half + 1);
    let sum = 0;
    for (let m = -half; m <= half; m++) {
      const x = m - q / PHASES;
      if (Math.abs(x) >= half) continue; // outside the window
      const t = (Math.PI * x) / half;
      const win = 0.42 + 0.5 * Math.cos(t) + 0.08 * Math.cos(2 * t);
      const arg = 2 * Math.PI * this.fc * x;
      const v = (arg === 0 ? 1 : Math.sin(arg) / arg) * win;
      k[m + half] = v;
      sum += v;
    }
    for (let i = 0; i < k.length; i++) k[i] /= sum;
    this.kernels[q] = k;
    return k;
  }

  sampleAt(c) {
    if (this.half === 0) return this.buf[Math.round(c) - this.bufStart];
    let base = Math.floor(c);
    let q = Math.round((c - base) * PHASES);
    if (q === PHASES) {
      base++;
      q = 0;
    }
    const k = this.kernel(q);
    const half = this.half;
    let acc = 0;
    for (let m = -half; m <= half; m++) {
      const idx = base + m - this.bufStart;
      if (idx >= 0) acc += this.buf[idx] * k[m + half]; // before the first sample: silence
    }
    return acc;
  }

  emit(v) {
    const s = Math.max(-1, Math.min(1, v));
    this.sumSq += s * s;
    this.out[this.n++] = s < 0 ? s * 0x8000 : s * 0x7fff;
    if (this.n === this.chunk) this.post();
  }

  post() {
    if (this.n === 0) return;
    const pcm = this.out.slice(0, this.n);
    const level = Math.sqrt(this.sumSq / this.n);
    this.port.postMessage({ pcm: pcm.buffer, level }, [pcm.buffer]);
    this.n = 0;
    this.sumSq = 0;
  }

  process(inputs) {
    const input = inputs[0];
    if (this.running && input && input.length > 0) {
      const frames = input[0].length;
      const mono = new Float32Array(frames);
      for (const ch of input) for (let i = 0; i < frames; i++) mono[i] += ch[i];
      if (input.length > 1) for (let i = 0; i < frames; i++) mono[i] /= input.length;
      this.append(mono);
      const end = this.bufStart + this.bufLen; // exclusive
      while (this.pos + this.half < end - 1 || (this.half === 0 && this.pos < end)) {
        this.emit(this.sampleAt(this.pos));
        this.pos += this.ratio;
      }
    }
    return this.running;
  }
}

registerProcessor('earshot-pcm16', PCM16Processor);
