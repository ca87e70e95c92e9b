// Drives the official JS SDK (npm assemblyai 4.41.5) real-time v2 client
// against an Earshot server; run by realtime/sdk_js_test.go.
//
// Environment:
//   EARSHOT_URL   https://HOST:PORT (TLS; NODE_EXTRA_CA_CERTS trusts it)
//   EARSHOT_KEY   API key
//   EARSHOT_MODE  token | key | badtoken
//   EARSHOT_PCM   path of 16 kHz mono 16-bit little-endian PCM to stream
//
// Prints one JSON line with what happened.
"use strict";
const fs = require("fs");
const { AssemblyAI } = require("assemblyai");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const base = process.env.EARSHOT_URL;
  const mode = process.env.EARSHOT_MODE;
  const client = new AssemblyAI({ apiKey: process.env.EARSHOT_KEY, baseUrl: base });
  const realtimeUrl = base.replace(/^https:/, "wss:") + "/v2/realtime/ws";
  const out = { partials: [], finals: [], info: [], errors: [], close: null };

  const params = { realtimeUrl, sampleRate: 16000, wordBoost: ["foo"], endUtteranceSilenceThreshold: 500 };
  if (mode === "token") {
    params.token = await client.realtime.createTemporaryToken({ expires_in: 60 });
    out.token = typeof params.token === "string" && params.token.length > 0;
  } else if (mode === "badtoken") {
    params.token = "not-a-real-token";
  }
  const rt = client.realtime.transcriber(params);
  let closed;
  const closedP = new Promise((r) => (closed = r));
  rt.on("transcript.partial", (m) => out.partials.push({ text: m.text, created: m.created instanceof Date && !isNaN(m.created) }));
  rt.on("transcript.final", (m) =>
    out.finals.push({ text: m.text, punctuated: m.punctuated, words: m.words.length, start: m.audio_start, end: m.audio_end, created: m.created instanceof Date && !isNaN(m.created) }),
  );
  rt.on("session_information", (m) => out.info.push(m.audio_duration_seconds));
  rt.on("error", (e) => out.errors.push(String(e && e.message)));
  rt.on("close", (code, reason) => {
    out.close = { code, reason };
    closed();
  });

  try {
    const open = await rt.connect();
    out.sessionId = open.sessionId;
    // Record every message type the socket delivers, to prove that
    // SessionTerminated arrived before the close.
    out.types = [];
    rt.socket.addEventListener("message", (ev) => {
      try {
        out.types.push(JSON.parse(ev.data.toString()).message_type || "error");
      } catch (e) {
        out.types.push("unparsable");
      }
    });
    out.expiresAtValid = open.expiresAt instanceof Date && !isNaN(open.expiresAt);
  } catch (e) {
    out.connectError = String(e.message);
    await Promise.race([closedP, sleep(3000)]);
    console.log(JSON.stringify(out));
    return;
  }

  const pcm = fs.readFileSync(process.env.EARSHOT_PCM);
  const chunk = 3200; // 100 ms
  const t0 = Date.now();
  for (let i = 0, n = 0; i < pcm.length; i += chunk, n++) {
    rt.sendAudio(pcm.subarray(i, Math.min(i + chunk, pcm.length)));
    const wait = t0 + (n + 1) * 100 - Date.now();
    if (wait > 0) await sleep(wait);
  }
  rt.forceEndUtterance();
  const c0 = Date.now();
  await rt.close();
  out.closeMs = Date.now() - c0;
  console.log(JSON.stringify(out));
}

main().then(() => process.exit(0), (e) => {
  console.log(JSON.stringify({ fatal: String(e && e.stack) }));
  process.exit(1);
});
