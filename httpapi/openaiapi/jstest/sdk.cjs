// Runs the official OpenAI Node SDK (openai 6.49.0, pinned in
// package-lock.json) against Earshot's OpenAI audio API and prints one JSON
// report on stdout; sdk_node_test.go starts the server, runs this and
// checks the report. Checks that need the SDK's own objects (typed errors,
// strings versus objects) are made here and listed in "failures".
//
// Environment: EARSHOT_URL (the server's origin), EARSHOT_KEY (an API key),
// EARSHOT_WAV (a WAV file of speech).
'use strict';
const fs = require('fs');
const { OpenAI, toFile } = require('openai');

const report = { failures: [], fatal: '', models: [], formats: {} };
const fail = (msg) => report.failures.push(msg);

async function main() {
  const started = Date.now();
  const baseURL = process.env.EARSHOT_URL + '/v1';
  const wav = process.env.EARSHOT_WAV;
  const client = new OpenAI({ baseURL, apiKey: process.env.EARSHOT_KEY, maxRetries: 0, timeout: 120000 });

  // Every response format, the file as a stream (the SDK reads it into a
  // Blob and appends it after the other fields).
  for (const format of [undefined, 'json', 'text', 'srt', 'vtt', 'verbose_json', 'diarized_json']) {
    const params = { file: fs.createReadStream(wav), model: 'whisper-1', language: 'en' };
    if (format) params.response_format = format;
    if (format === 'verbose_json') params.timestamp_granularities = ['word', 'segment'];
    const res = await client.audio.transcriptions.create(params);
    const name = format || 'default';
    if (['text', 'srt', 'vtt'].includes(format)) {
      if (typeof res !== 'string') fail(`${name}: got ${typeof res}, want a string`);
      report.formats[name] = { text: String(res) };
      continue;
    }
    if (typeof res !== 'object' || typeof res.text !== 'string') {
      fail(`${name}: got ${JSON.stringify(res)}`);
      continue;
    }
    const out = { text: res.text, keys: Object.keys(res).sort() };
    if (res.usage) out.usageSeconds = res.usage.seconds;
    if (format === 'verbose_json') {
      out.language = res.language;
      out.duration = res.duration;
      out.words = (res.words || []).map((w) => w.word);
      out.segments = (res.segments || []).map((s) => ({ id: s.id, start: s.start, end: s.end, text: s.text }));
      for (const w of res.words || []) {
        if (typeof w.start !== 'number' || typeof w.end !== 'number' || w.end < w.start) fail(`verbose_json word ${JSON.stringify(w)}`);
      }
    }
    if (format === 'diarized_json') {
      out.speakers = (res.segments || []).map((s) => s.speaker);
    }
    report.formats[name] = out;
  }

  // The file from a Buffer through toFile, a prompt, and fields before the file.
  const fromBuffer = await client.audio.transcriptions.create({
    model: 'whisper-1',
    prompt: 'New York, transcription service',
    response_format: 'json',
    file: await toFile(fs.readFileSync(wav), 'speech.wav', { type: 'audio/wav' }),
  });
  report.bufferText = fromBuffer.text;

  // Models.
  for await (const m of client.models.list()) report.models.push(m.id);
  const one = await client.models.retrieve('whisper-1');
  if (one.id !== 'whisper-1' || one.object !== 'model') fail(`models.retrieve: ${JSON.stringify(one)}`);

  // Errors surface as the SDK's typed errors with the server's fields.
  const expectError = async (name, fn, cls, status, param, code) => {
    try {
      await fn();
      fail(`${name}: no error`);
    } catch (e) {
      if (!(e instanceof cls)) fail(`${name}: ${e && e.constructor && e.constructor.name}: ${e}`);
      else if (e.status !== status || e.param !== param || e.code !== code || !e.message) {
        fail(`${name}: status ${e.status} param ${e.param} code ${e.code} message ${e.message}`);
      }
      report[name] = e.message;
    }
  };
  const wrong = new OpenAI({ baseURL, apiKey: 'sk-not-a-real-key-000000', maxRetries: 0 });
  await expectError('wrongKey', () => wrong.models.list(), OpenAI.AuthenticationError, 401, null, 'invalid_api_key');
  await expectError('badModel', () => client.audio.transcriptions.create({ file: fs.createReadStream(wav), model: 'gpt-9' }),
    OpenAI.BadRequestError, 400, 'model', 'model_not_found');
  await expectError('badFormat', () => client.audio.transcriptions.create({ file: fs.createReadStream(wav), model: 'whisper-1', response_format: 'xml' }),
    OpenAI.BadRequestError, 400, 'response_format', 'invalid_value');
  await expectError('unknownModel', () => client.models.retrieve('nope'), OpenAI.NotFoundError, 404, 'model', 'model_not_found');
  report.elapsedMs = Date.now() - started;
}

main()
  .catch((e) => { report.fatal = String((e && e.stack) || e); })
  .finally(() => {
    process.stdout.write(JSON.stringify(report) + '\n');
    process.exitCode = report.fatal || report.failures.length ? 1 : 0;
  });
