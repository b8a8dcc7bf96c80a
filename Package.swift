// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "c1nk-gst",
    products: [
        .library(name: "C1nkGst", targets: ["C1nkGst"]),
        .executable(name: "c1nk-gst-answer", targets: ["c1nk-gst-answer"]),
        .executable(name: "c1nk-gst-server", targets: ["c1nk-gst-server"]),
        .executable(name: "c1nk-gst-door", targets: ["c1nk-gst-door"]),
        .executable(name: "c1nk-gst-bench", targets: ["c1nk-gst-bench"]),
        // The GStreamer plugin: libgstc1nk.so (c1nkdoorbin, c1nkstamp, c1nklatency).
        .library(name: "gstc1nk", type: .dynamic, targets: ["GstC1nk"]),
    ],
    targets: [
        // The only place with C: module map and a header of static inline helpers
        // for what Swift cannot call (macros, casts, variadic functions).
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-webrtc-1.0 gstreamer-sdp-1.0 gstreamer-video-1.0 gstreamer-app-1.0 gstreamer-pbutils-1.0 gstreamer-controller-1.0 libsoup-3.0 pangocairo gdk-pixbuf-2.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev",
                              "libgstreamer-plugins-bad1.0-dev", "libsoup-3.0-dev",
                              "libpango1.0-dev", "libcairo2-dev", "libgdk-pixbuf-2.0-dev"])]
        ),
        // The shipped pipeline descriptions (Pipelines/*.pipeline) as a resource bundle.
        .target(
            name: "C1nkPipelines",
            path: "Pipelines",
            resources: [.copy("display.pipeline"), .copy("record.pipeline"),
                        .copy("display-record.pipeline"), .copy("audio.pipeline")]
        ),
        .target(name: "C1nkGst", dependencies: ["CGStreamer", "C1nkPipelines"]),
        // The plugin: GObject boilerplate (macros) in C, the behaviour in Swift.
        .target(name: "CGstC1nk", dependencies: ["CGStreamer"]),
        .target(name: "GstC1nk", dependencies: ["C1nkGst", "CGStreamer", "CGstC1nk"]),
        // A C app that drives c1nkdoorbin over GObject alone (the plugin tests' second consumer).
        .executableTarget(name: "c1nk-gst-plugin-app", dependencies: ["CGStreamer"]),
        .executableTarget(name: "c1nk-gst-answer", dependencies: ["C1nkGst"]),
        .executableTarget(name: "c1nk-gst-server", dependencies: ["C1nkGst"]),
        .executableTarget(name: "c1nk-gst-door", dependencies: ["C1nkGst"]),
        .executableTarget(name: "c1nk-gst-bench", dependencies: ["C1nkGst", "CGStreamer"]),
        .testTarget(name: "C1nkGstTests", dependencies: ["C1nkGst", "CGStreamer"]),
    ]
)
