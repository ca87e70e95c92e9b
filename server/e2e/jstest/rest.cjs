// Drives the official JS SDK (npm assemblyai 4.41.5) REST client against the
// Earshot reference server: wire-format.md section 7, "JS 4.41.5" items 1 to 7.
// Run by server/cmd/earshot-server/sdk_node_test.go.
//
// Environment:
//   EARSHOT_URL      http://HOST:PORT of the server
//   EARSHOT_KEY      API key
//   EARSHOT_WAV      16 kHz mono WAV that says "hello ... new york ..."
//   EARSHOT_PII_WAV  WAV that says a person's name and a phone number
//
// Prints one JSON object (the report) on stdout. Exits 1 when any check
// failed (report.failures lists them, each also on stderr), 2 on a crash.
"use strict";
const fs = require("fs");
const { AssemblyAI } = require("assemblyai");

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`environment variable ${name} is not set`);
  return v;
};

const report = { failures: [] };
const check = (ok, what, detail) => {
  if (!ok) {
    const msg = detail === undefined ? what : `${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
    report.failures.push(msg);
    process.stderr.write(`FAIL ${msg}\n`);
  }
  return ok;
};
const isInt = (x) => Number.isInteger(x);
const validDate = (d) => d instanceof Date && !isNaN(d.getTime());

// Structural checks on a completed transcript.
function checkTranscript(name, t, id) {
  check(t && t.id === id, `${name}: id`, t && t.id);
  if (!check(t && t.status === "completed", `${name}: status`, t && { status: t.status, error: t.error })) return;
  check(typeof t.text === "string" && t.text.length > 0, `${name}: text`, t.text);
  check(Array.isArray(t.words) && t.words.length > 0, `${name}: words`, t.words);
  for (const w of t.words || []) {
    if (!check(typeof w.text === "string" && isInt(w.start) && isInt(w.end) && w.end >= w.start && typeof w.confidence === "number", `${name}: word`, w)) break;
  }
}

// The cues of an SRT or VTT document: {time, text} with text lines joined by "\n".
function cues(doc) {
  return doc
    .replace(/\r\n/g, "\n")
    .split(/\n\n+/)
    .map((block) => block.split("\n"))
    .map((lines) => {
      const i = lines.findIndex((l) => l.includes("-->"));
      return i < 0 ? null : { time: lines[i], text: lines.slice(i + 1).join("\n") };
    })
    .filter((c) => c !== null);
}

async function main() {
  const base = env("EARSHOT_URL");
  const key = env("EARSHOT_KEY");
  const wav = env("EARSHOT_WAV");
  const piiWav = env("EARSHOT_PII_WAV");
  const client = new AssemblyAI({ apiKey: key, baseUrl: base });
  const wait = { pollingInterval: 500, pollingTimeout: 60000 };
  const t0 = Date.now();

  // 1. Uploads: a path (the SDK streams the file: chunked) and a Buffer.
  const pathURL = await client.files.upload(wav);
  check(typeof pathURL === "string" && pathURL.startsWith("http"), "upload(path): upload_url", pathURL);
  const bufURL = await client.files.upload(fs.readFileSync(piiWav));
  check(typeof bufURL === "string" && bufURL.startsWith("http") && bufURL !== pathURL, "upload(buffer): upload_url", bufURL);
  report.uploads = [pathURL, bufURL];

  // 2. submit + waitUntilReady; the PII job is submitted too so that it
  // runs while transcribe() uploads and polls.
  const sub = await client.transcripts.submit({ audio_url: pathURL, speaker_labels: true });
  check(typeof sub.id === "string" && sub.id !== "", "submit: id", sub);
  check(sub.status === "queued" || sub.status === "processing", "submit: status", sub.status);
  check(sub.audio_url === pathURL && sub.speaker_labels === true, "submit: echoed params", { audio_url: sub.audio_url, speaker_labels: sub.speaker_labels });
  const piiSub = await client.transcripts.submit({
    audio_url: bufURL,
    redact_pii: true,
    redact_pii_audio: true,
    redact_pii_policies: ["person_name", "phone_number"],
  });
  check(typeof piiSub.id === "string" && piiSub.id !== "", "submit(pii): id", piiSub);

  const viaTranscribe = await client.transcripts.transcribe({ audio: wav }, wait);
  checkTranscript("transcribe({audio: path})", viaTranscribe, viaTranscribe.id);
  check(viaTranscribe.id !== sub.id, "transcribe: a new transcript");

  const tr = await client.transcripts.waitUntilReady(sub.id, wait);
  checkTranscript("waitUntilReady", tr, sub.id);
  check(Array.isArray(tr.utterances) && tr.utterances.length > 0 && tr.utterances.every((u) => typeof u.speaker === "string" && u.speaker !== ""),
    "speaker_labels: utterances with speakers", tr.utterances);
  report.id = tr.id;
  report.text = tr.text;
  report.transcribeText = viaTranscribe.text;
  report.words = (tr.words || []).length;
  report.speakers = [...new Set((tr.utterances || []).map((u) => u.speaker))];
  const id = tr.id;

  // 3. Sentences, paragraphs, subtitles.
  const sents = await client.transcripts.sentences(id);
  check(sents.id === id && Array.isArray(sents.sentences) && sents.sentences.length > 0, "sentences", sents);
  for (const s of sents.sentences || []) {
    check(typeof s.text === "string" && s.text !== "" && Array.isArray(s.words) && s.words.length > 0 && isInt(s.start) && isInt(s.end), "sentence", s);
  }
  const paras = await client.transcripts.paragraphs(id);
  check(paras.id === id && Array.isArray(paras.paragraphs) && paras.paragraphs.length > 0, "paragraphs", paras);
  for (const p of paras.paragraphs || []) {
    check(typeof p.text === "string" && p.text !== "" && Array.isArray(p.words) && p.words.length > 0, "paragraph", p);
  }
  report.sentences = (sents.sentences || []).length;
  report.paragraphs = (paras.paragraphs || []).length;

  const srt = await client.transcripts.subtitles(id);
  check(typeof srt === "string" && srt.startsWith("1\n00:00:"), "subtitles(id) srt", srt);
  const srtCues = cues(srt);
  check(srtCues.length > 0 && srtCues.every((c) => /^\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d$/.test(c.time) && c.text !== ""), "srt cues", srtCues);
  const vtt = await client.transcripts.subtitles(id, "vtt", 32);
  check(typeof vtt === "string" && vtt.startsWith("WEBVTT"), "subtitles(id, vtt, 32)", vtt);
  const vttCues = cues(vtt);
  check(vttCues.length > 0 && vttCues.every((c) => /^(\d\d:)?\d\d:\d\d\.\d\d\d --> (\d\d:)?\d\d:\d\d\.\d\d\d$/.test(c.time) && c.text !== ""), "vtt cues", vttCues);
  for (const c of vttCues) {
    check(c.text.length <= 32, "vtt chars_per_caption=32: caption too long", c.text);
  }
  report.srtCues = srtCues.length;
  report.vttCues = vttCues.length;

  // 4. Word search, with a phrase (sent as words=hello%2Cnew+york).
  const ws = await client.transcripts.wordSearch(id, ["hello", "new york"]);
  check(ws.id === id && Array.isArray(ws.matches), "wordSearch", ws);
  const matches = ws.matches || [];
  let sum = 0;
  for (const m of matches) {
    sum += m.count;
    check(isInt(m.count) && m.count > 0 && Array.isArray(m.timestamps) && m.timestamps.length === m.count && Array.isArray(m.indexes) && m.indexes.length === m.count,
      "wordSearch match", m);
  }
  check(ws.total_count === sum, "wordSearch: total_count is the sum of counts", ws);
  const count = (term) => matches.filter((m) => m.text.toLowerCase() === term).reduce((a, m) => a + m.count, 0);
  check(count("hello") >= 1, "wordSearch: hello", matches);
  check(count("new york") >= 1, "wordSearch: new york (a phrase)", matches);
  report.wordSearch = { total: ws.total_count, hello: count("hello"), newYork: count("new york") };

  // The PII transcript must be done before listing, so that all three are there.
  const pii = await client.transcripts.waitUntilReady(piiSub.id, wait);
  checkTranscript("pii waitUntilReady", pii, piiSub.id);
  report.piiText = pii.text;
  const low = (pii.text || "").toLowerCase();
  check(!low.includes("sarah") && !low.includes("johnson") && low.includes("#"), "pii: text redacted", pii.text);

  // 5. List, following prev_url until null.
  let page = await client.transcripts.list({ limit: 1 });
  const seen = [];
  const prevURLs = [];
  for (let n = 0; ; n++) {
    if (!check(n < 20, "list: prev_url never became null")) break;
    check(page.page_details && page.page_details.limit === 1 && page.page_details.result_count === page.transcripts.length, "list: page_details", page.page_details);
    check(Array.isArray(page.transcripts) && page.transcripts.length <= 1, "list: transcripts", page.transcripts);
    for (const it of page.transcripts) {
      seen.push(it.id);
      check(validDate(it.created), "list: created is a valid Date", String(it.created));
      check(it.completed === null || it.completed === undefined || validDate(it.completed), "list: completed is a valid Date", String(it.completed));
      check(typeof it.resource_url === "string" && typeof it.status === "string", "list item", it);
    }
    const prev = page.page_details && page.page_details.prev_url;
    if (!prev) break;
    prevURLs.push(prev);
    page = await client.transcripts.list(prev);
  }
  const want = [piiSub.id, viaTranscribe.id, sub.id].sort();
  check(JSON.stringify([...seen].sort()) === JSON.stringify(want) && new Set(seen).size === seen.length, "list: paged through every transcript once", { seen, want });
  report.listed = seen;
  report.prevURLs = prevURLs;

  const done = await client.transcripts.list({ limit: 1, status: "completed", after_id: undefined });
  check(Array.isArray(done.transcripts) && done.transcripts.length === 1 && done.transcripts[0].status === "completed" && validDate(done.transcripts[0].created),
    "list({limit: 1, status: completed, after_id: undefined})", done);

  // 6. Redacted audio: the URL, then the file (fetched by the SDK without a key).
  const ra = await client.transcripts.redactedAudio(pii.id);
  check(ra.status === "redacted_audio_ready" && typeof ra.redacted_audio_url === "string" && ra.redacted_audio_url.startsWith("http"), "redactedAudio", ra);
  const file = await client.transcripts.redactedAudioFile(pii.id);
  const bytes = Buffer.from(await file.arrayBuffer());
  check(bytes.length > 1000, "redactedAudioFile: size", bytes.length);
  report.redactedAudioBytes = bytes.length;

  // 7. Delete, then an unknown id.
  const del = await client.transcripts.delete(id);
  check(del.id === id && del.text === "Deleted by user." && del.audio_url === "http://deleted_by_user", "delete", { id: del.id, text: del.text, audio_url: del.audio_url });
  const after = await client.transcripts.get(id);
  check(after.text === "Deleted by user.", "get after delete", { text: after.text });

  const raw = await fetch(`${base}/v2/transcript/does-not-exist`, { headers: { Authorization: key } });
  const rawBody = await raw.text();
  let serverError;
  try {
    serverError = JSON.parse(rawBody).error;
  } catch {
    serverError = undefined;
  }
  check(raw.status === 404 && (raw.headers.get("content-type") || "").startsWith("application/json") && typeof serverError === "string" && serverError !== "",
    "raw GET unknown id: 404 JSON {error}", { status: raw.status, type: raw.headers.get("content-type"), body: rawBody });
  try {
    const got = await client.transcripts.get("does-not-exist");
    check(false, "get(does-not-exist) resolved", got);
  } catch (e) {
    report.notFoundMessage = e.message;
    check(e.message === serverError, "get(does-not-exist): e.message is the server's error", { message: e.message, server: serverError });
  }

  report.elapsedMs = Date.now() - t0;
}

main().then(
  () => {
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(report.failures.length ? 1 : 0);
  },
  (e) => {
    report.fatal = String((e && e.stack) || e);
    report.failures.push(`exception: ${e && e.message}`);
    process.stderr.write(`FATAL ${report.fatal}\n`);
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(2);
  },
);
