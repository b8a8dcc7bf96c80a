// The C1nk web page: log in, follow the answerer's events, answer the door.
// No framework: the JSON API of docs/web.md, server-sent events, WebRTC.
"use strict";

const $ = (id) => document.getElementById(id);
const page = { csrf: null, state: { state: "idle" }, mine: null, events: null, media: null, muted: false, reoffers: 0 };
// A connection interrupted this long (a Wi-Fi blip that does not pass) is
// replaced: a new offer for the same call, the old viewer ended.
const REOFFER_AFTER_MS = 3000;

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && page.csrf) headers["X-CSRF-Token"] = page.csrf;
  const response = await fetch(path, { method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body) });
  let json = {};
  try { json = await response.json(); } catch (_) {}
  return { status: response.status, json };
}

function show(which) {
  $("login").hidden = which !== "login";
  $("door").hidden = which !== "door";
}

async function start() {
  const session = await api("GET", "/api/session");
  if (session.status !== 200) { document.body.dataset.state = "login"; show("login"); $("password").focus(); return; }
  page.csrf = session.json.csrf || null;
  show("door");
  await refresh();
  listen();
  if ("Notification" in window && Notification.permission === "default") Notification.requestPermission().catch(() => {});
}

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = await api("POST", "/api/login", { password: $("password").value });
  $("password").value = "";
  if (result.status === 200) { $("login-error").textContent = ""; page.csrf = result.json.csrf; start(); return; }
  $("login-error").textContent = result.status === 429 ? "Príliš veľa pokusov, skúste neskôr." : "Nesprávne heslo.";
});

$("logout").addEventListener("click", async () => {
  await api("POST", "/api/logout", {});
  if (page.events) page.events.close();
  stopMedia();
  page.csrf = null;
  show("login");
});

function listen() {
  if (page.events) page.events.close();
  const events = new EventSource("/api/events");
  page.events = events;
  events.addEventListener("state", (e) => render(JSON.parse(e.data)));
  for (const name of ["ringing", "accepted", "ended", "door-opened", "door-open-failed", "missed", "registered", "disconnected", "recorded", "snapshot"]) {
    events.addEventListener(name, (e) => {
      const event = JSON.parse(e.data);
      if (name === "door-open-failed") $("notice").textContent = "Dvere sa neotvorili: " + (event.reason || "chyba");
      refresh();
    });
  }
  events.onerror = () => { if (events.readyState === EventSource.CLOSED) setTimeout(start, 2000); };
}

function notify(door) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try { new Notification("Zvoní: " + door, { body: "C1nk", tag: "c1nk-ring", icon: "bell.svg" }); } catch (_) {}
}

async function refresh() {
  const state = await api("GET", "/api/state");
  if (state.status === 401) { show("login"); return; }
  render(state.json);
  const calls = await api("GET", "/api/calls");
  if (calls.status === 200) renderCalls(calls.json);
}

function render(state) {
  const previous = page.state;
  page.state = state;
  const phase = state.state || "idle";
  const elsewhere = phase === "call" && page.mine !== state.callId;
  document.body.dataset.state = phase;
  document.body.dataset.elsewhere = elsewhere ? "1" : "";
  $("online").classList.toggle("on", !!state.online);
  $("overline").textContent = phase === "ringing" ? "ZVONÍ" : phase === "call" ? (elsewhere ? "PRIJATÉ INDE" : "HOVOR") : "PRIPRAVENÉ";
  $("door-name").textContent = phase === "idle" ? "" : (state.door || "");
  $("ringing-actions").hidden = phase !== "ringing";
  $("call-actions").hidden = phase !== "call" || elsewhere;
  const open = $("open");
  open.textContent = state.doorOpened ? "ODOMKNUTÉ" : "OTVORIŤ DVERE";
  open.classList.toggle("confirmed", !!state.doorOpened);
  page.muted = !!state.muted;
  $("mute").textContent = page.muted ? "zapnúť" : "stlmiť";
  if (elsewhere) $("notice").textContent = "Prijaté inde";
  else if (phase !== previous.state) $("notice").textContent = "";
  if (phase === "ringing" && page.notified !== state.callId) { page.notified = state.callId; notify(state.door); }
  if (phase === "idle") { page.mine = null; stopMedia(); }
  else startMedia(state.callId); // ringing: the preview; in a call, here or elsewhere: watching
}

function renderCalls(calls) {
  const rings = $("rings");
  rings.replaceChildren(...(calls.rings || []).slice(0, 20).map((ring) => {
    const item = document.createElement("li");
    const door = document.createElement("span");
    door.textContent = ring.door;
    const when = document.createElement("span");
    when.className = "when";
    when.textContent = new Date(ring.t).toLocaleString("sk-SK") + " · " + ({ answered: "prijaté", missed: "zmeškané", rejected: "odmietnuté", ringing: "zvoní", "answered-elsewhere": "prijaté inde" }[ring.outcome] || ring.outcome);
    if (ring.snapshot) {
      // The visitor's snapshot: same origin, so the session cookie goes with it.
      const picture = document.createElement("img");
      picture.className = "visitor";
      picture.alt = "návštevník";
      picture.loading = "lazy";
      picture.src = "/api/snapshots/" + encodeURIComponent(ring.snapshot);
      item.append(picture);
    }
    item.append(door, when);
    return item;
  }));
  const recordings = $("recordings");
  recordings.replaceChildren(...(calls.recordings || []).slice(0, 20).map((recording) => {
    const item = document.createElement("li");
    const play = document.createElement("a");
    // The name is a path below the recordings' root (2026/12/abc.mkv): each component encoded.
    const url = "/api/recordings/" + recording.name.split("/").map(encodeURIComponent).join("/");
    play.href = url;
    play.textContent = recording.name;
    play.addEventListener("click", (e) => { e.preventDefault(); const p = $("player"); p.hidden = false; p.src = url; p.play().catch(() => {}); });
    const download = document.createElement("a");
    download.href = url;
    download.download = recording.name.split("/").pop();
    download.textContent = "stiahnuť";
    item.append(play, download);
    return item;
  }));
}

async function command(word) {
  const result = await api("POST", "/api/command", { command: word });
  if (result.status === 200) return true;
  if (result.json.answeredElsewhere) { page.mine = null; $("notice").textContent = "Prijaté inde"; }
  else $("notice").textContent = result.json.error || "Chyba";
  return false;
}

$("accept").addEventListener("click", async () => {
  const callId = page.state.callId;
  page.mine = callId;
  $("video").muted = false;
  if (!(await command("accept"))) { page.mine = null; $("video").muted = true; }
  else talk();
  refresh();
});
$("reject").addEventListener("click", () => command("reject"));
$("open").addEventListener("click", () => command("open"));
$("hangup").addEventListener("click", () => command("hangup"));
$("mute").addEventListener("click", async () => { if (await command(page.muted ? "unmute" : "mute")) refresh(); });

// The door's video and audio over WebRTC (POST /api/whep, docs/web.md); the
// microphone only once this browser accepted.
async function startMedia(callId) {
  if (page.media && page.media.callId === callId) return;
  stopMedia();
  if (!window.RTCPeerConnection) return;
  const pc = new RTCPeerConnection();
  const media = { callId, pc, resource: null, microphone: null };
  page.media = media;
  pc.addTransceiver("video", { direction: "recvonly" });
  // sendrecv from the start, with no track: the microphone is added once this browser accepted (talk()).
  media.audio = pc.addTransceiver("audio", { direction: "sendrecv" });
  pc.ontrack = (event) => {
    // Loopback and home Wi-Fi: the least buffering the browser allows (Chromium's jitter buffer target).
    try { if ("jitterBufferTarget" in event.receiver) event.receiver.jitterBufferTarget = 0; else event.receiver.playoutDelayHint = 0; } catch (_) {}
    const video = $("video");
    if (!video.srcObject) video.srcObject = new MediaStream();
    video.srcObject.addTrack(event.track);
    video.onplaying = () => { document.body.dataset.playing = "1"; };
  };
  pc.onconnectionstatechange = () => watchConnection(media);
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") resolve(); };
    setTimeout(resolve, 2000);
  });
  const response = await fetch("/api/whep", { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/sdp", "X-CSRF-Token": page.csrf || "" }, body: pc.localDescription.sdp });
  if (page.media !== media) return;
  if (response.status !== 201) {
    // 409: the door's media have not started yet; ask again while it rings or the call goes on.
    stopMedia();
    if (response.status === 409) setTimeout(() => { if (page.state.callId === callId && !page.media) render(page.state); }, 700);
    return;
  }
  media.resource = response.headers.get("Location");
  await pc.setRemoteDescription({ type: "answer", sdp: await response.text() });
  if (page.mine === callId) talk();
}

// "disconnected" often passes by itself (ICE finds its pair again): wait
// REOFFER_AFTER_MS, then offer anew for the same call; "failed" at once.
function watchConnection(media) {
  const state = media.pc.connectionState;
  if (page.media !== media) return;
  if (state === "connected") { clearTimeout(media.reoffer); media.reoffer = null; return; }
  if (state === "failed") { reoffer(media); return; }
  if (state === "disconnected" && !media.reoffer) media.reoffer = setTimeout(() => reoffer(media), REOFFER_AFTER_MS);
}

function reoffer(media) {
  if (page.media !== media || media.pc.connectionState === "connected") return;
  page.reoffers += 1;
  stopMedia();
  startMedia(media.callId);
}

// This browser answered: its microphone becomes the call's (mixed with the
// local one, through the same gates). Nothing is captured before accept.
async function talk() {
  const media = page.media;
  if (!media || media.microphone || page.mine !== media.callId || !navigator.mediaDevices) return;
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    if (page.media !== media || page.mine !== media.callId) { stream.getTracks().forEach((t) => t.stop()); return; }
    media.microphone = stream;
    await media.audio.sender.replaceTrack(stream.getAudioTracks()[0]);
    document.body.dataset.talking = "1";
  } catch (error) {
    $("notice").textContent = "Mikrofón nie je dostupný.";
  }
}

function stopMedia() {
  const media = page.media;
  page.media = null;
  delete document.body.dataset.playing;
  delete document.body.dataset.talking;
  const video = $("video");
  video.srcObject = null;
  video.muted = true;
  if (!media) return;
  clearTimeout(media.reoffer);
  if (media.microphone) media.microphone.getTracks().forEach((track) => track.stop());
  media.pc.close();
  if (media.resource) fetch(media.resource, { method: "DELETE", credentials: "same-origin", headers: { "X-CSRF-Token": page.csrf || "" } }).catch(() => {});
}

// A page that goes away ends its viewer at once (one that vanishes is ended when its event stream closes).
window.addEventListener("pagehide", () => {
  const media = page.media;
  if (media && media.resource) fetch(media.resource, { method: "DELETE", credentials: "same-origin", keepalive: true, headers: { "X-CSRF-Token": page.csrf || "" } }).catch(() => {});
});

start();
