import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia

/// A recorded file re-opened with GStreamer: what the discoverer says of it,
/// and how many video frames actually decode.
struct MediaFile {
    let path: String
    var duration: Double = 0
    var videoCaps: String?
    var audioCaps: String?
    var decodedFrames = 0

    init(_ path: String) throws {
        self.path = path
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        guard let discoverer = gst_discoverer_new(10 * 1_000_000_000, &error) else {
            throw GLibError.take(error)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(discoverer)) }
        guard let info = gst_discoverer_discover_uri(discoverer, "file://" + path, &error) else {
            throw GLibError.take(error)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        duration = Double(gst_discoverer_info_get_duration(info)) / 1e9
        videoCaps = Self.firstCaps(gst_discoverer_info_get_video_streams(info))
        audioCaps = Self.firstCaps(gst_discoverer_info_get_audio_streams(info))
        decodedFrames = try Self.countDecodedFrames(path)
    }

    private static func firstCaps(_ list: UnsafeMutablePointer<GList>?) -> String? {
        guard let list else { return nil }
        defer { gst_discoverer_stream_info_list_free(list) }
        guard let stream = list.pointee.data, let caps = gst_discoverer_stream_info_get_caps(OpaquePointer(stream)) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        let text = gst_caps_to_string(caps)!
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Decodes the whole file as fast as possible and counts video frames.
    private static func countDecodedFrames(_ path: String) throws -> Int {
        var error: UnsafeMutablePointer<GError>?
        let pipeline = gst_parse_launch("filesrc location=\"\(path)\" ! decodebin ! videoconvert ! fakesink name=out sync=false", &error)!
        if error != nil { throw GLibError.take(error) }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let counter = countBuffers(atElementNamed: "out", in: pipeline)
        var done = false
        let watch = BusWatch(pipeline) { message in
            if message.pointee.type == GST_MESSAGE_EOS || message.pointee.type == GST_MESSAGE_ERROR { done = true }
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        MainContext.run(timeout: 20) { done }
        watch.remove()
        return counter.value.load(ordering: .relaxed)
    }
}
