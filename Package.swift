// swift-tools-version:6.0
import PackageDescription

// The layers, lowest first; each depends only on layers below it, and the
// compiler holds that (an upward import does not build):
//   CGStreamer (C) → CPictureBlend, CDisplayInput (C) / C1nkGLib → C1nkProtocol → C1nkCall →
//   C1nkPipeline → C1nkProbes → C1nkMedia →
//   C1nkSignaling → C1nkAnswerer / C1nkLocal / C1nkService → commands, plugin.
// Only C1nkGLib, C1nkPipeline, C1nkProbes and C1nkMedia import CGStreamer. docs/architecture.md has the map.

/// Swift 5 language mode, for the targets whose GLib callbacks and shared
/// state are not yet proven to the strict concurrency checker (docs/architecture.md).
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "c1nk-gst",
    products: [
        // The library, layer by layer (import the layers you need).
        .library(name: "C1nkGst", targets: ["C1nkProtocol", "C1nkGLibBase", "C1nkGLib", "C1nkCall", "C1nkPipeline", "C1nkProbes",
                                            "C1nkMedia", "C1nkSignaling", "C1nkAnswerer", "C1nkService", "C1nkLocal", "C1nkCommandLine"]),
        .executable(name: "c1nk-gst-answer", targets: ["c1nk-gst-answer"]),
        .executable(name: "c1nk-gst-server", targets: ["c1nk-gst-server"]),
        .executable(name: "c1nk-gst-door", targets: ["c1nk-gst-door"]),
        .executable(name: "c1nk-gst-bench", targets: ["c1nk-gst-bench"]),
        // The GStreamer plugin: libgstc1nk.so (c1nkdoorbin, c1nkstamp, c1nklatency).
        .library(name: "gstc1nk", type: .dynamic, targets: ["GstC1nk"]),
    ],
    targets: [
        // The GLib half of the C shim: GLib, GObject, GIO, libsoup (no GStreamer).
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "glib-2.0 gobject-2.0 gio-2.0 gio-unix-2.0 libsoup-3.0",
            providers: [.apt(["libglib2.0-dev", "libsoup-3.0-dev"])]
        ),
        // The C shim: module map and a header of static inline helpers for what
        // Swift cannot call (macros, casts, variadic functions).
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-webrtc-1.0 gstreamer-sdp-1.0 gstreamer-video-1.0 gstreamer-app-1.0 gstreamer-pbutils-1.0 gstreamer-controller-1.0 libsoup-3.0 pangocairo gdk-pixbuf-2.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev",
                              "libgstreamer-plugins-bad1.0-dev", "libsoup-3.0-dev",
                              "libpango1.0-dev", "libcairo2-dev", "libgdk-pixbuf-2.0-dev"])]
        ),
        // Blending the display's still pictures over video, per frame in C (a pad probe).
        .target(name: "CPictureBlend", dependencies: ["CGStreamer"]),
        // A call's video into the display's compositor as each frame is decoded (an element and a pad probe in C).
        .target(name: "CDisplayInput", dependencies: ["CGStreamer"]),
        // The shipped pipeline descriptions (Pipelines/*.pipeline) as a resource bundle.
        .target(
            name: "C1nkPipelines",
            path: "Pipelines",
            resources: [.copy("display.pipeline"), .copy("record.pipeline"),
                        .copy("display-record.pipeline"), .copy("audio.pipeline")]
        ),
        // The GLib bridge, in two halves, the only Swift that touches raw callbacks and pointers.
        // Its GStreamer-free half: the main context, timers and the clock, sockets, logs.
        .target(name: "C1nkGLibBase", dependencies: ["CGLib"]),
        // Its GStreamer half: owning wrappers (elements, bins, pads, caps, buffers), probes, buses.
        .target(name: "C1nkGLib", dependencies: ["CGLib", "CGStreamer", "C1nkGLibBase"]),
        // The wire protocol: Codable messages, the codec, protocol errors. Foundation only.
        .target(name: "C1nkProtocol", swiftSettings: []),
        // The call as a pure state machine (events in, actions out) and its typed events.
        .target(name: "C1nkCall", dependencies: ["C1nkProtocol"], swiftSettings: []),
        // Pipelines from text: descriptions, their errors, their lifecycle.
        .target(name: "C1nkPipeline", dependencies: ["CGStreamer", "C1nkGLib", "C1nkPipelines"], exclude: ["README.md"],
                swiftSettings: []),
        // The measurement probes used by the bench, the doctor and the plugin.
        .target(name: "C1nkProbes", dependencies: ["CGStreamer", "C1nkGLib", "C1nkPipeline"], exclude: ["README.md"],
                swiftSettings: []),
        // webrtcbin sessions, recording, the display, the door's media.
        .target(name: "C1nkMedia", dependencies: ["CGStreamer", "CPictureBlend", "CDisplayInput", "C1nkGLib", "C1nkProtocol",
                                                  "C1nkPipelines", "C1nkPipeline", "C1nkProbes"],
                swiftSettings: []),
        // The `Signaller` protocol; the WebSocket client as one implementation, an in-memory one for tests.
        .target(name: "C1nkSignaling", dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkCall"], swiftSettings: []),
        // The answering core shared by the command and the plugin.
        .target(name: "C1nkAnswerer", dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline", "C1nkMedia",
                                                     "C1nkSignaling"],
                swiftSettings: []),
        // Running as a service: the control socket, readiness notification, recording retention.
        .target(name: "C1nkService", dependencies: ["C1nkGLib"], swiftSettings: []),
        // The local signaling server (a pure call router behind sockets) and the simulated door.
        .target(name: "C1nkLocal", dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkPipeline", "C1nkMedia", "C1nkSignaling"],
                swiftSettings: []),
        // Argument parsing shared by the commands. The standard library and Glibc only.
        .target(name: "C1nkCommandLine", swiftSettings: []),
        // The plugin: GObject boilerplate (macros) in C, the behaviour in Swift.
        .target(name: "CGstC1nk", dependencies: ["CGStreamer"]),
        .target(name: "GstC1nk", dependencies: ["CGStreamer", "CGstC1nk", "C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkProbes",
                                                "C1nkMedia", "C1nkSignaling", "C1nkAnswerer"], swiftSettings: []),
        // A C app that drives c1nkdoorbin over GObject alone (the plugin tests' second consumer).
        .executableTarget(name: "c1nk-gst-plugin-app", dependencies: ["CGStreamer"]),
        .executableTarget(name: "c1nk-gst-answer",
                          dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline", "C1nkProbes", "C1nkMedia",
                                         "C1nkSignaling", "C1nkAnswerer", "C1nkService", "C1nkLocal", "C1nkCommandLine"],
                          swiftSettings: []),
        .executableTarget(name: "c1nk-gst-server", dependencies: ["C1nkGLib", "C1nkLocal", "C1nkCommandLine"],
                          swiftSettings: []),
        .executableTarget(name: "c1nk-gst-door",
                          dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkMedia", "C1nkLocal", "C1nkCommandLine"],
                          swiftSettings: []),
        .executableTarget(name: "c1nk-gst-bench",
                          dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline", "C1nkProbes", "C1nkMedia",
                                         "C1nkSignaling", "C1nkAnswerer", "C1nkLocal", "C1nkCommandLine"],
                          swiftSettings: []),
        // The GLib bridge's own tests: the clock, the owning wrappers.
        .testTarget(name: "C1nkGLibTests", dependencies: ["CGStreamer", "C1nkGLibBase", "C1nkGLib"], swiftSettings: []),
        // Pipelines from text and the probes, on pipelines that are built but carry no call.
        .testTarget(name: "C1nkPipelineTests", dependencies: ["C1nkGLib", "C1nkPipeline"], swiftSettings: []),
        .testTarget(name: "C1nkProbesTests", dependencies: ["C1nkProbes"], swiftSettings: []),
        // Protocol and call tests: no GStreamer in their build.
        .testTarget(name: "C1nkProtocolTests", dependencies: ["C1nkProtocol"], swiftSettings: []),
        .testTarget(name: "C1nkCallTests", dependencies: ["C1nkCall", "C1nkProtocol"], swiftSettings: []),
        .testTarget(name: "C1nkGstTests",
                    dependencies: ["CGStreamer", "CPictureBlend", "C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline",
                                   "C1nkProbes", "C1nkMedia", "C1nkSignaling", "C1nkAnswerer", "C1nkService", "C1nkLocal", "C1nkCommandLine"],
                    swiftSettings: swift5),
    ]
)
