import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib
import C1nkProbes
import C1nkRTSP

/// A real RTSP client in this process: `rtspsrc` playing the door's video
/// and audio, decoded, its frames counted and its audio's loudest sample
/// kept. The server shares the main context: wait with `waitUntil`, never by
/// blocking.
final class RTSPClient {
    let pipeline: Pipeline
    let frames: FrameCounter
    let videoPackets: FrameCounter
    private let audio = AudioPeaks()
    private var streamLinks: SignalConnection?

    init(url: String, protocols: String = "tcp") throws {
        // async=false: neither sink waits in preroll for the other. With it, a video sink that prerolled
        // first held its stream (and, over TCP, rtspsrc's one reading thread) until the audio's sink
        // prerolled too: the client took one frame and stalled whenever the audio came late.
        let description = "rtspsrc name=s location=\(url) latency=100 protocols=\(protocols)"
            + " identity name=packets ! decodebin ! identity name=frames ! fakesink sync=false async=false"
            + " identity name=heard ! decodebin ! audioconvert ! audio/x-raw,format=S16LE"
            + " ! identity name=voice ! fakesink sync=false async=false"
        pipeline = Pipeline(retaining: try XCTUnwrap(gst_parse_launch(description, nil)))
        // Each branch takes its stream by payload type. Linked by caps in the launch line, a branch got
        // nothing while the other played in CI and in 3 of 31 runs of RTSPTests on a loaded machine.
        let source = try XCTUnwrap(pipeline.element(named: "s"))
        let video = try XCTUnwrap(pipeline.element(named: "packets")?.staticPad("sink"))
        let voice = try XCTUnwrap(pipeline.element(named: "heard")?.staticPad("sink"))
        streamLinks = RestreamClientLinks.connect(source, video: video, audio: voice)
        frames = countBuffers(atElementNamed: "frames", in: pipeline.pointer)
        videoPackets = countBuffers(atElementNamed: "packets", in: pipeline.pointer)
        let decodedVoice = try XCTUnwrap(pipeline.element(named: "voice")?.staticPad("sink"))
        let peaks = audio
        _ = decodedVoice.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = gst_pad_probe_info_get_buffer(info) { peaks.add(buffer) }
            return GST_PAD_PROBE_OK
        }
        pipeline.setState(GST_STATE_PLAYING)
    }

    deinit {
        streamLinks?.disconnect()
        pipeline.setState(GST_STATE_NULL)
    }

    /// Audio buffers decoded so far and the loudest sample among them (of 32767).
    var audioBuffers: Int { audio.read().buffers }
    var audioPeak: Int { audio.read().peak }
    /// Resets the audio's figures (from now on).
    func resetAudio() { audio.reset() }

    /// The first error on the bus, as text, once there is one.
    func error() -> String? {
        guard let message = pipeline.popMessage(GST_MESSAGE_ERROR) else { return nil }
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message.pointer, &error, &debug)
        defer { g_clear_error(&error); g_free(debug) }
        return (error.map { String(cString: $0.pointee.message) } ?? "") + " " + (debug.map { String(cString: $0) } ?? "")
    }
}

/// The loudest sample of S16 buffers, from a streaming thread.
final class AudioPeaks: @unchecked Sendable {
    private let lock = NSLock()
    private var buffers = 0
    private var peak = 0

    func add(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
        defer { gst_buffer_unmap(buffer, &map) }
        var loudest = 0
        map.data.withMemoryRebound(to: Int16.self, capacity: Int(map.size) / 2) { samples in
            for i in 0..<(Int(map.size) / 2) { loudest = max(loudest, abs(Int(samples[i]))) }
        }
        lock.lock()
        buffers += 1
        peak = max(peak, loudest)
        lock.unlock()
    }

    func read() -> (buffers: Int, peak: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (buffers, peak)
    }

    func reset() {
        lock.lock()
        (buffers, peak) = (0, 0)
        lock.unlock()
    }
}
