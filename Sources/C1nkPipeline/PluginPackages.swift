/// Which Debian package brings the elements users most often miss.
package enum PluginPackages {
    package static func package(forElement name: String) -> String? {
        let table: [(String, [String])] = [
            ("gstreamer1.0-plugins-bad", ["webrtcbin", "kmssink", "waylandsink", "dtlsdec", "dtlsenc", "srtpdec", "srtpenc", "openh264dec", "h264parse", "vp9parse", "webrtcdsp", "webrtcechoprobe", "proxysink", "proxysrc", "interaudiosink", "interaudiosrc"]),
            ("gstreamer1.0-plugins-good", ["rtpvp8depay", "rtph264depay", "rtpopuspay", "rtpopusdepay", "vp8enc", "vp8dec", "vp9dec", "vp9enc", "matroskamux", "mp4mux", "level", "autovideosink", "autoaudiosink", "autoaudiosrc", "pulsesink", "pulsesrc", "mulawenc", "alawenc", "rtppcmupay", "rtppcmapay", "splitmuxsink", "udpsink", "rtpbin"]),
            ("gstreamer1.0-plugins-base", ["opusenc", "opusdec", "videoconvert", "videoscale", "audioconvert", "audioresample", "volume", "audiotestsrc", "videotestsrc", "decodebin", "appsrc", "appsink", "audiomixer", "tcpclientsink"]),
            ("gstreamer1.0-plugins-ugly", ["x264enc"]),
            ("libgstreamer1.0-0", ["identity", "typefind", "queue", "tee", "fakesink", "filesink", "filesrc", "capsfilter", "fakesrc", "valve"]),
            ("gstreamer1.0-libav", ["avdec_h264", "avdec_vp8", "avdec_vp9"]),
            ("gstreamer1.0-x", ["textoverlay", "timeoverlay", "clockoverlay", "xvimagesink", "ximagesink"]),
            ("gstreamer1.0-alsa", ["alsasink", "alsasrc"]),
            ("gstreamer1.0-nice", ["nicesrc", "nicesink"]),
            ("gstreamer1.0-gl", ["glimagesink"]),
            ("gstreamer1.0-pulseaudio", []),
        ]
        return table.first { $0.1.contains(name) }?.0
    }
}
