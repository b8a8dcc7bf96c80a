import C1nkGLib
import CGStreamer

/// Builds a bin from a gst-launch description, with errors a user can act on.
enum PipelineBin {
    /// Name of the element whose sink pad becomes the bin's "sink".
    static let inputName = "c1nk-in"
    /// Name of the element whose src pad becomes the bin's "src".
    static let outputName = "c1nk-out"

    /// Parses `description` into a bin. With `input`, an `identity` named
    /// `c1nk-in` is put in front and its sink pad ghosted; with `output`, the
    /// element named `c1nk-out` has its src pad ghosted. (GStreamer's own
    /// "ghost unlinked pads" picks the wrong pads when the description has a
    /// `decodebin`, whose links appear only later.)
    static func make(_ description: String, name: String, input: Bool = false, output: Bool = false) throws -> UnsafeMutablePointer<GstElement> {
        GStreamer.initialize()
        let full = input ? "identity name=\(inputName) silent=true ! \(description)" : description
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_bin_from_description_full(full, 0, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            let failure = GLibError.take(error)
            if let parsed { gst_object_unref(UnsafeMutableRawPointer(parsed)) }
            throw MediaError.badDescription(description, detail: explain(failure))
        }
        guard let bin = parsed else { throw MediaError.badDescription(description, detail: "empty description") }
        gst_object_ref_sink(UnsafeMutableRawPointer(bin))
        do {
            if input { try ghost(bin, element: inputName, pad: "sink", description) }
            if output { try ghost(bin, element: outputName, pad: "src", description) }
        } catch {
            gst_object_unref(UnsafeMutableRawPointer(bin))
            throw error
        }
        gst_object_set_name(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstObject.self), name)
        return bin
    }

    private static func ghost(_ bin: UnsafeMutablePointer<GstElement>, element: String, pad: String, _ description: String) throws {
        guard let inner = Gst.find(element, in: bin) else {
            throw MediaError.badDescription(description, detail: "no element named \(element)")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(inner)) }
        guard let target = gst_element_get_static_pad(inner, pad) else {
            throw MediaError.badDescription(description, detail: "\(element) has no \(pad) pad")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(target)) }
        let ghostPad = gst_ghost_pad_new(pad, target)
        gst_pad_set_active(ghostPad, 1)
        gst_element_add_pad(bin, ghostPad)
    }

    /// Adds the Debian package that brings a missing element, when we know it.
    private static func explain(_ error: GLibError) -> String {
        var text = error.message
        if let range = text.range(of: "no element \"") {
            let name = text[range.upperBound...].prefix { $0 != "\"" }
            if let package = PluginPackages.package(forElement: String(name)) {
                text += " (install the Debian package \(package))"
            }
        }
        return text
    }
}

/// Which Debian package brings the elements users most often miss.
enum PluginPackages {
    static func package(forElement name: String) -> String? {
        let table: [(String, [String])] = [
            ("gstreamer1.0-plugins-bad", ["webrtcbin", "kmssink", "waylandsink", "dtlsdec", "dtlsenc", "srtpdec", "srtpenc", "openh264dec", "h264parse", "vp9parse", "webrtcdsp", "webrtcechoprobe", "proxysink", "proxysrc", "interaudiosink", "interaudiosrc"]),
            ("gstreamer1.0-plugins-good", ["rtpvp8depay", "rtph264depay", "rtpopuspay", "rtpopusdepay", "vp8enc", "vp8dec", "vp9dec", "vp9enc", "matroskamux", "mp4mux", "level", "autovideosink", "autoaudiosink", "autoaudiosrc", "pulsesink", "pulsesrc", "mulawenc", "alawenc", "rtppcmupay", "rtppcmapay", "splitmuxsink", "udpsink", "rtpbin"]),
            ("gstreamer1.0-plugins-base", ["opusenc", "opusdec", "videoconvert", "videoscale", "audioconvert", "audioresample", "volume", "audiotestsrc", "videotestsrc", "decodebin", "alsasink", "alsasrc", "xvimagesink", "ximagesink", "appsrc", "appsink", "audiomixer", "tcpclientsink"]),
            ("gstreamer1.0-plugins-ugly", ["x264enc"]),
            ("libgstreamer1.0-0", ["identity", "typefind", "queue", "tee", "fakesink", "filesink", "filesrc", "capsfilter", "fakesrc", "valve"]),
            ("gstreamer1.0-libav", ["avdec_h264", "avdec_vp8", "avdec_vp9"]),
            ("gstreamer1.0-x", ["textoverlay", "timeoverlay", "clockoverlay"]),
            ("gstreamer1.0-nice", ["nicesrc", "nicesink"]),
            ("gstreamer1.0-gl", ["glimagesink"]),
            ("gstreamer1.0-pulseaudio", []),
        ]
        return table.first { $0.1.contains(name) }?.0
    }
}
