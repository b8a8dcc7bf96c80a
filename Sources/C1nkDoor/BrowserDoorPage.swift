/// The page of `BrowserDoor`: a door panel in a browser, the kind of door
/// the C1nk service itself is tested with (libwebrtc). A canvas camera stamps
/// every frame as `FrameStamp` does, a tone is the visitor's voice, the local
/// server's door protocol runs over one WebSocket, one RTCPeerConnection per
/// app that joins. It reports on the console: `c1nk-door {event…}` and, once
/// a second, `c1nk-door-stats {…}` with the sender's statistics.
///
/// Query parameters: `server` (ws URL), `width`, `height`, `fps`, `codec`
/// (vp8, h264), `name`, `monotonic-offset` (CLOCK_REALTIME − CLOCK_MONOTONIC
/// in ms, so the stamps carry the clock every process here shares), `ring`
/// (0: do not ring on connect), `max-kbps`, `repair` (the repair streams
/// offered: "rtx,red,ulpfec" as a browser does by default).
enum BrowserDoorPage {
    static let html = ##"""
<!doctype html>
<meta charset="utf-8">
<title>c1nk browser door</title>
<canvas id="camera"></canvas>
<script>
"use strict";
// A door panel in a browser: a canvas camera that stamps each frame the way
// FrameStamp does (time and sequence as rows of black and white blocks), a
// tone as the visitor's voice, the local server's door protocol over one
// WebSocket, one RTCPeerConnection per app that joins. It reports its
// sender's statistics once a second on the console ("c1nk-door-stats {…}").
const params = new URLSearchParams(location.search);
const server = params.get("server");
const width = Number(params.get("width") || 640);
const height = Number(params.get("height") || 480);
const fps = Number(params.get("fps") || 30);
const codec = (params.get("codec") || "vp8").toLowerCase();
const doorName = params.get("name") || "Prehliadač";
// CLOCK_REALTIME - CLOCK_MONOTONIC in ms, measured by whoever started us:
// the stamps carry the monotonic clock that every process here shares.
const monotonicOffset = Number(params.get("monotonic-offset") || 0);
const autoRing = params.get("ring") !== "0";
const maxKbps = Number(params.get("max-kbps") || 0);
// Which repair streams the door offers besides its codec: "rtx,red,ulpfec" as a browser does by default.
const repairOffered = (params.get("repair") || "rtx,red,ulpfec").split(",").filter(Boolean).map(n => "video/" + n);

function log(kind, fields) { console.log("c1nk-door " + JSON.stringify(Object.assign({ event: kind }, fields || {}))); }

// --- the camera ---------------------------------------------------------
const canvas = document.getElementById("camera");
canvas.width = width;
canvas.height = height;
const g = canvas.getContext("2d", { alpha: false });
const stream = canvas.captureStream(0);
const videoTrack = stream.getVideoTracks()[0];
videoTrack.contentHint = "motion";
let sequence = 0;
const blocks = 26, bits = 24, mask = (1 << bits) - 1;
const blockWidth = Math.floor(width / (blocks + 2));
const stampTop = height - 32;

function stampRow(value, top) {
  for (let block = 0; block < blocks; block++) {
    let one;
    if (block === 0) one = true;
    else if (block === 1) one = false;
    else one = ((value >> (bits - 1 - (block - 2))) & 1) === 1;
    g.fillStyle = one ? "#fff" : "#000";
    g.fillRect(block * blockWidth, top, blockWidth, 16);
  }
}

// A scene with motion and texture, so the encoder spends what it is allowed.
const tiles = [];
for (let i = 0; i < 48; i++) tiles.push({ x: Math.random() * width, y: Math.random() * (height - 80), s: 16 + Math.random() * 48, h: Math.random() * 360, v: 1 + Math.random() * 4 });
function drawFrame() {
  const t = performance.now() / 1000;
  const gradient = g.createLinearGradient(0, 0, width, height);
  gradient.addColorStop(0, `hsl(${(t * 40) % 360},60%,40%)`);
  gradient.addColorStop(1, `hsl(${(t * 40 + 180) % 360},60%,30%)`);
  g.fillStyle = gradient;
  g.fillRect(0, 0, width, height);
  for (const tile of tiles) {
    tile.x = (tile.x + tile.v) % width;
    g.fillStyle = `hsl(${(tile.h + t * 30) % 360},70%,55%)`;
    g.fillRect(tile.x, tile.y, tile.s, tile.s);
  }
  for (let i = 0; i < 30; i++) {
    g.fillStyle = Math.random() < 0.5 ? "#222" : "#ddd";
    g.fillRect(Math.random() * width, Math.random() * (height - 80), 6, 6);
  }
  g.fillStyle = "#fff";
  g.font = "bold 28px sans-serif";
  g.fillText(doorName, 24, 48);
  sequence += 1;
  const now = performance.timeOrigin + performance.now() - monotonicOffset;
  stampRow(Math.floor(now) & mask, stampTop);
  stampRow(sequence & mask, stampTop - 24);
  videoTrack.requestFrame();
}
// Frames at their own deadlines, not drifting with the timer's lateness.
const frameStart = performance.now();
function tick() {
  drawFrame();
  const next = frameStart + sequence * 1000 / fps;
  setTimeout(tick, Math.max(0, next - performance.now()));
}

// --- the voice ----------------------------------------------------------
const audio = new AudioContext({ sampleRate: 48000 });
const tone = audio.createOscillator();
tone.frequency.value = 440;
const toneGain = audio.createGain();
toneGain.gain.value = 0.3;
const voice = audio.createMediaStreamDestination();
tone.connect(toneGain).connect(voice);
tone.start();
const audioTrack = voice.stream.getAudioTracks()[0];

// --- signaling and sessions ---------------------------------------------
const peers = new Map();
let socket;
let callId = null;

function send(message) { socket.send(JSON.stringify(message)); }

async function offerTo(peerId) {
  const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: "max-bundle" });
  peers.set(peerId, pc);
  const videoSender = pc.addTransceiver(videoTrack, { direction: "sendonly", streams: [stream] });
  pc.addTransceiver(audioTrack, { direction: "sendrecv", streams: [voice.stream] });
  const capabilities = RTCRtpSender.getCapabilities("video").codecs;
  const wanted = capabilities.filter(c => c.mimeType.toLowerCase() === "video/" + codec);
  const repair = capabilities.filter(c => repairOffered.includes(c.mimeType.toLowerCase()));
  if (wanted.length) videoSender.setCodecPreferences(wanted.concat(repair));
  const parameters = videoSender.sender.getParameters();
  // Keep the stamps readable: the browser lowers the frame rate, never the size.
  parameters.degradationPreference = "maintain-resolution";
  if (maxKbps > 0 && parameters.encodings.length) parameters.encodings[0].maxBitrate = maxKbps * 1000;
  await videoSender.sender.setParameters(parameters);
  pc.onicecandidate = (e) => {
    if (!e.candidate || !e.candidate.candidate) return;
    send({ type: "ice", callId, peerId, candidate: { candidate: e.candidate.candidate, sdpMid: e.candidate.sdpMid, sdpMLineIndex: e.candidate.sdpMLineIndex } });
  };
  pc.onconnectionstatechange = () => log("connection", { peerId, state: pc.connectionState });
  pc.ontrack = (e) => {
    // The resident's voice: played silently so the receiver runs.
    const element = new Audio();
    element.srcObject = new MediaStream([e.track]);
    element.muted = true;
    element.play().catch(() => {});
  };
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  log("offer", { peerId, sdp: offer.sdp });
  send({ type: "offer", callId, peerId, sdp: offer.sdp });
}

function closePeer(peerId) {
  const pc = peers.get(peerId);
  if (pc) { pc.close(); peers.delete(peerId); }
}

async function received(message) {
  switch (message.type) {
    case "hello-ok":
      log("ready", { doorId: message.doorId });
      if (autoRing) send({ type: "ring" });
      break;
    case "ring-ok":
      callId = message.callId;
      log("rang", { callId });
      break;
    case "join":
      callId = message.callId;
      await offerTo(message.peerId);
      break;
    case "answer": {
      const pc = peers.get(message.peerId);
      log("answer", { peerId: message.peerId, sdp: message.sdp });
      if (pc) await pc.setRemoteDescription({ type: "answer", sdp: message.sdp });
      break;
    }
    case "ice": {
      const pc = peers.get(message.peerId);
      if (pc) await pc.addIceCandidate(message.candidate).catch((e) => log("error", { message: "candidate: " + e }));
      break;
    }
    case "accept":
      log("accepted", { peerId: message.peerId });
      break;
    case "open-door":
      send({ type: "door-opened", callId });
      log("door-opened");
      break;
    case "leave":
      closePeer(message.peerId);
      break;
    case "call-end":
      log("call-ended", { reason: message.reason });
      for (const peerId of [...peers.keys()]) closePeer(peerId);
      callId = null;
      break;
    case "error":
      log("error", { message: message.message });
      break;
  }
}

// --- statistics -------------------------------------------------------------
// Frames drawn before the first one was sent (the connection was not up),
// so that "skipped" counts only the frames the encoder chose not to send.
let unsentBeforeFirst = null;
async function watchFirstSend() {
  for (const pc of peers.values()) {
    const report = await pc.getStats();
    report.forEach((s) => {
      if (unsentBeforeFirst === null && s.type === "outbound-rtp" && s.kind === "video" && s.framesSent > 0) {
        unsentBeforeFirst = sequence - s.framesSent;
      }
    });
  }
  if (unsentBeforeFirst === null) setTimeout(watchFirstSend, 20);
}
setTimeout(watchFirstSend, 20);

async function reportStats() {
  for (const [peerId, pc] of peers) {
    const report = await pc.getStats();
    const figures = { peerId, drawn: sequence };
    report.forEach((s) => {
      if (s.type === "outbound-rtp" && s.kind === "video") {
        Object.assign(figures, {
          framesSent: s.framesSent, framesEncoded: s.framesEncoded, bytesSent: s.bytesSent, packetsSent: s.packetsSent,
          retransmittedPacketsSent: s.retransmittedPacketsSent, nackCount: s.nackCount, pliCount: s.pliCount, firCount: s.firCount,
          targetBitrate: s.targetBitrate, frameWidth: s.frameWidth, frameHeight: s.frameHeight, framesPerSecond: s.framesPerSecond,
          qualityLimitationReason: s.qualityLimitationReason, encoder: s.encoderImplementation,
        });
      } else if (s.type === "candidate-pair" && s.nominated && s.state === "succeeded") {
        Object.assign(figures, { availableOutgoingBitrate: s.availableOutgoingBitrate, roundTripTime: s.currentRoundTripTime });
      } else if (s.type === "remote-inbound-rtp" && s.kind === "video") {
        Object.assign(figures, { remotePacketsLost: s.packetsLost, remoteFractionLost: s.fractionLost });
      }
    });
    if (unsentBeforeFirst !== null && figures.framesSent !== undefined) figures.skipped = Math.max(0, sequence - figures.framesSent - unsentBeforeFirst);
    console.log("c1nk-door-stats " + JSON.stringify(figures));
  }
}

function connect() {
  socket = new WebSocket(server);
  socket.onopen = () => send({ type: "hello", role: "door", doorId: params.get("door-id") || "browser-door", doorName });
  socket.onmessage = (e) => { received(JSON.parse(e.data)).catch((error) => log("error", { message: String(error) })); };
  socket.onclose = () => log("disconnected");
}

tick();
setInterval(reportStats, 1000);
connect();
</script>
"""##
}
