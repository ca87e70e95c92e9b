// Drives the official JS SDK (npm assemblyai 4.41.5) Universal-Streaming
// (v3) StreamingTranscriber against an Earshot server; run by
// realtime/universal/sdk_node_test.go.
//
// Environment:
//   EARSHOT_URL   https://HOST:PORT (TLS; NODE_EXTRA_CA_CERTS trusts it)
//   EARSHOT_KEY   API key
//   EARSHOT_MODE  token | key | badtoken
//   EARSHOT_PCM1, EARSHOT_PCM2   16 kHz mono 16-bit PCM: the first turn
//                 (followed by a pause), then the second (ended by
//                 ForceEndpoint)
//
// Prints one JSON line with what happened.
"use strict";
const fs = require("fs");
const { AssemblyAI } = require("assemblyai");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function stream(tr, pcm) {
  const chunk = 3200; // 100 ms
  const t0 = Date.now();
  for (let i = 0, n = 0; i < pcm.length; i += chunk, n++) {
    tr.sendAudio(pcm.subarray(i, Math.min(i + chunk, pcm.length)));
    const wait = t0 + (n + 1) * 100 - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

async function main() {
  const base = process.env.EARSHOT_URL;
  const mode = process.env.EARSHOT_MODE;
  const client = new AssemblyAI({ apiKey: process.env.EARSHOT_KEY, baseUrl: base, streamingBaseUrl: base });
  const out = { turns: [], types: [], speechStarted: 0, errors: [], close: null };
  const params = {
    websocketBaseUrl: base.replace(/^https:/, "wss:") + "/v3/ws",
    sampleRate: 16000,
    formatTurns: true,
    endOfTurnConfidenceThreshold: 0.5,
    minTurnSilence: 400,
    maxTurnSilence: 1200,
    keytermsPrompt: ["school"],
    languageDetection: true,
    maxConnectionRetries: 0,
    // Opening a pocketsphinx stream with keyterms takes 0.3-0.5 s; on the
    // shared 2-core test machine more than the default 1 s at times.
    connectTimeout: 10000,
  };
  if (mode === "token") {
    params.token = await client.streaming.createTemporaryToken({ expires_in_seconds: 60, max_session_duration_seconds: 600 });
    out.token = typeof params.token === "string" && params.token.length > 0;
  } else if (mode === "badtoken") {
    params.token = "not-a-real-token";
  }
  const tr = client.streaming.transcriber(params);
  tr.on("turn", (t) =>
    out.turns.push({
      order: t.turn_order, end: t.end_of_turn, formatted: t.turn_is_formatted, transcript: t.transcript,
      confidence: t.end_of_turn_confidence, words: t.words.length,
      finalWords: t.words.filter((w) => w.word_is_final).length,
      wordsOK: t.words.every((w) => typeof w.text === "string" && w.end >= w.start && w.confidence >= 0 && w.confidence <= 1),
      language: t.language_code || "",
    }),
  );
  tr.on("speechStarted", () => out.speechStarted++);
  tr.on("error", (e) => out.errors.push(String(e && e.message)));
  tr.on("close", (code, reason) => (out.close = { code, reason }));

  try {
    const begin = await tr.connect();
    out.id = begin.id;
    out.expiresIn = begin.expires_at - Date.now() / 1000;
    tr.socket.addEventListener("message", (ev) => {
      try {
        out.types.push(JSON.parse(ev.data.toString()).type);
      } catch (e) {
        out.types.push("unparsable");
      }
    });
  } catch (e) {
    out.connectError = String(e.message);
    out.connectCode = e.code;
    console.log(JSON.stringify(out));
    return;
  }
  await stream(tr, fs.readFileSync(process.env.EARSHOT_PCM1));
  // The first turn has ended on its pause; the second is not formatted.
  tr.updateConfiguration({ format_turns: false, end_of_turn_confidence_threshold: 0.9, max_turn_silence: 3000 });
  await stream(tr, fs.readFileSync(process.env.EARSHOT_PCM2));
  tr.forceEndpoint();
  await sleep(300);
  const c0 = Date.now();
  await tr.close();
  out.closeMs = Date.now() - c0;
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ fatal: String(e && e.stack) }));
});
