import C1nkDoor
import C1nkGLib
import C1nkProbes
import Foundation
import Glibc

/// `--web-talk`: mouth-to-ear between the page and the door, both ways,
/// with the wall's audio rows' tone bursts and onset probe. The page's
/// microphone is Chromium's fake capture playing a file of 1500 Hz bursts
/// (every 500 ms); its onsets are read from the captured track
/// (`MediaStreamTrackProcessor`) and heard at the door's `heard-level`. The
/// door's 1000 Hz ticks are timed at its `door-mouth` and heard in the page
/// from the remote track, decoded (before Chromium's audio output, which
/// headless has none of). The wall's own microphone is silent.
struct WebTalkFigures: Codable, PrettyJSON {
    var runs: Int
    var pageToDoorMs: LatencyStats
    var doorToPageMs: LatencyStats
    /// Bursts sent and matched by an onset on the other side within 400 ms.
    var pageBursts: Int
    var doorBursts: Int
    /// Chromium's audio jitter buffer for the door's voice, one line per call.
    var pageAudioBuffer: [String]
    var goalMs = 150.0

    var table: String {
        """
        Talk through the web page (\(runs) calls, headless Chromium on loopback, tone bursts every 500 ms)
        mouth-to-ear, page → door: p50 \(Int(pageToDoorMs.p50)) ms, p95 \(Int(pageToDoorMs.p95)) ms (\(pageToDoorMs.count) of \(pageBursts) bursts heard; goal ≤ \(Int(goalMs)) ms)
        mouth-to-ear, door → page: p50 \(Int(doorToPageMs.p50)) ms, p95 \(Int(doorToPageMs.p95)) ms (\(doorToPageMs.count) of \(doorBursts) bursts heard; goal ≤ \(Int(goalMs)) ms)
          Chromium's audio jitter buffer: \(pageAudioBuffer.joined(separator: "; "))
        """
    }
}

struct WebTalkBenchmark {
    let options: BenchOptions

    /// Onsets (unix ms) in the page's microphone and in what it hears from the door.
    static let probe = """
        window.__talk = { mouth: [], ear: [], pcs: [] };
        (() => {
          function watch(track, into) {
            if (!window.MediaStreamTrackProcessor) return;
            const reader = new MediaStreamTrackProcessor({ track }).readable.getReader();
            let quietFrames = 0, loud = false;
            (async () => { for (;;) { const { value, done } = await reader.read(); if (done) return;
              const now = performance.timeOrigin + performance.now();
              const n = value.numberOfFrames, rate = value.sampleRate, samples = new Float32Array(n);
              try { value.copyTo(samples, { planeIndex: 0, format: 'f32-planar' }); } catch (e) { value.close(); continue; }
              value.close();
              for (let i = 0; i < n; i++) {
                if (Math.abs(samples[i]) > 0.05) {
                  // An onset after 40 ms of quiet; the chunk is taken to end now.
                  if (!loud && quietFrames > rate * 0.04) into.push(now - (n - i) * 1000 / rate);
                  loud = true; quietFrames = 0;
                } else if (++quietFrames > rate * 0.04) loud = false;
              } } })();
          }
          const media = navigator.mediaDevices;
          if (media) { const real = media.getUserMedia.bind(media);
            media.getUserMedia = async (c) => { const s = await real(c); const t = s.getAudioTracks()[0]; if (t) watch(t.clone(), window.__talk.mouth); return s; }; }
          const Original = window.RTCPeerConnection; if (!Original) return;
          window.RTCPeerConnection = function (...args) { const pc = new Original(...args); window.__talk.pcs.push(pc);
            pc.addEventListener('track', (e) => { if (e.track.kind === 'audio') watch(e.track, window.__talk.ear); }); return pc; };
          window.RTCPeerConnection.prototype = Original.prototype;
        })();
        """

    func run(progress: (String) -> Void) throws -> WebTalkFigures {
        let mouth = NSTemporaryDirectory() + "c1nk-page-mouth-\(getpid()).wav"
        try Self.bursts().write(to: URL(fileURLWithPath: mouth))
        defer { try? FileManager.default.removeItem(atPath: mouth) }
        let rig = try WebBenchRig(door: { $0.media.audioSource = AudioBenchmark.doorMouth }, microphone: "audiotestsrc is-live=true wave=silence",
                                  network: nil, browserFlags: ["--use-file-for-fake-audio-capture=\(mouth)", "--autoplay-policy=no-user-gesture-required"],
                                  probe: Self.probe)
        defer { withExtendedLifetime(rig) {} }
        let offset = WebBenchmark.realtimeMinusMonotonic()
        /// Unix ms in the page → the monotonic nanoseconds the door's probes use.
        func monotonic(_ values: [Double]) -> [UInt64] { values.map { UInt64(max(0, ($0 - offset) * 1_000_000)) } }
        var pageToDoor: [Double] = [], doorToPage: [Double] = []
        var pageBursts = 0, doorBursts = 0, jitterBuffer: [String] = []
        let runs = max(3, options.repeats)
        for run in 1...runs {
            progress("talk through the page: call \(run)/\(runs)…")
            rig.door.ring()
            guard MainContext.run(timeout: 10, until: { rig.page.string("document.body.dataset.state") == "ringing" }) else { throw BenchError("no ring in the page") }
            try rig.page.evaluate("document.getElementById('accept').click()")
            guard MainContext.run(timeout: 10, until: { rig.page.string("document.body.dataset.talking") == "1" }) else {
                throw BenchError("the page did not start talking")
            }
            MainContext.spin(1.5)
            guard let doorMouth = rig.door.onsetProbe(at: "door-mouth"), let doorEar = rig.door.onsetProbe(at: "heard-level") else {
                throw BenchError("the door has no onset probes")
            }
            let start = Date().timeIntervalSince1970 * 1000
            MainContext.spin(options.duration)
            let end = Date().timeIntervalSince1970 * 1000 - 500
            jitterBuffer.append(try rig.page.evaluate(Self.audioBufferScript) as? String ?? "")
            let talk = try rig.page.evaluate("JSON.stringify({ mouth: window.__talk.mouth, ear: window.__talk.ear })") as? String ?? "{}"
            let onsets = (try? JSONSerialization.jsonObject(with: Data(talk.utf8))) as? [String: [Double]] ?? [:]
            let pageMouth = (onsets["mouth"] ?? []).filter { $0 >= start && $0 <= end }
            let sent = doorMouth.onsets.filter { $0 >= monotonic([start])[0] && $0 <= monotonic([end])[0] }
            pageToDoor += AudioOnsetProbe.delays(mouth: monotonic(pageMouth), ear: doorEar.onsets)
            doorToPage += AudioOnsetProbe.delays(mouth: sent, ear: monotonic(onsets["ear"] ?? []))
            pageBursts += pageMouth.count
            doorBursts += sent.count
            try rig.page.evaluate("window.__talk.mouth = []; window.__talk.ear = []; window.__talk.pcs = []")
            try rig.hangUp()
            MainContext.spin(1)
        }
        return WebTalkFigures(runs: runs, pageToDoorMs: LatencyStats(pageToDoor), doorToPageMs: LatencyStats(doorToPage),
                              pageBursts: pageBursts, doorBursts: doorBursts, pageAudioBuffer: jitterBuffer)
    }

    /// Chromium's audio jitter buffer for the door's voice: mean delay, target and minimum (ms).
    static let audioBufferScript = """
        (async () => { let out = '';
          for (const pc of window.__talk.pcs) { try { (await pc.getStats()).forEach((r) => {
            if (r.type !== 'inbound-rtp' || r.kind !== 'audio' || !r.jitterBufferEmittedCount) return;
            const ms = (v) => Math.round(1000 * v / r.jitterBufferEmittedCount);
            out = 'mean ' + ms(r.jitterBufferDelay) + ' ms, target ' + ms(r.jitterBufferTargetDelay || 0) + ' ms, minimum ' + ms(r.jitterBufferMinimumDelay || 0) + ' ms, RTP jitter ' + Math.round(1000 * (r.jitter || 0)) + ' ms'; }); } catch (e) {} }
          return out; })()
        """

    /// 10 s of 48 kHz mono 16-bit WAV: 90 ms of 1500 Hz at half scale every 500 ms.
    static func bursts() -> Data {
        let rate = 48_000, seconds = 10
        var samples = [Int16](repeating: 0, count: rate * seconds)
        for start in stride(from: 0, to: samples.count, by: rate / 2) {
            for i in 0..<(rate * 90 / 1000) where start + i < samples.count {
                samples[start + i] = Int16(16_000 * sin(2 * Double.pi * 1500 * Double(i) / Double(rate)))
            }
        }
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples.count * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
        append(UInt32(rate)); append(UInt32(rate * 2)); append(UInt16(2)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(UInt32(samples.count * 2))
        for sample in samples { append(sample) }
        return data
    }
}
