// swift-tools-version:6.0
import PackageDescription

// One target per concept, lowest first; each depends only on targets below it, and the
// compiler holds that (an upward import does not build):
//   CGLib, CGStreamer (C) → C1nkGLibBase → C1nkGLib (the bridge: the only Swift with raw pointers)
//   C1nkProtocol → C1nkCall;  C1nkSpeaker (pure);  C1nkCommandLine
//   C1nkGLib → C1nkPipeline → C1nkProbes → C1nkMedia → C1nkDisplay
//   C1nkGLibBase → C1nkSignaling → C1nkLocal, C1nkService
//   C1nkMedia → C1nkViewers (what copies a call to someone else: web viewers, the snapshot).
//   C1nkMedia + C1nkViewers + C1nkSignaling → C1nkAnswerer → C1nkDoor → commands, plugin.
//   C1nkCall + C1nkGLibBase → C1nkHome (pure) → C1nkMQTT (with CMosquitto, C1nkGLibBase: the MQTT bridge).
//   C1nkGLibBase + C1nkCall → C1nkWeb (with CCrypt: the web page's server, docs/web.md).
//   C1nkAnswerer → C1nkRTSP (with CRestream over CGstRTSPServer: the RTSP restream).
//   C1nkGLib + C1nkCall → C1nkSIP (with CSIPAgentInterface, which loads libc1nksipagent.so: CSIPAgent over CSofiaSIP; phones rung over SIP, docs/sip.md).
// The targets c1nk-gst-answer links import FoundationEssentials, never Foundation (whose
// ICU data would sit in its memory): C1nkGLibBase has the few helpers that stand in.
// C1nkSignaling, C1nkLocal and C1nkService stand on C1nkGLibBase, the GStreamer-free half of
// the bridge: c1nk-gst-server links no libgstreamer. docs/architecture.md has the map.

/// Swift 5 language mode, for the targets whose GLib callbacks and shared
/// state are not yet proven to the strict concurrency checker (docs/architecture.md).
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
let readme: [String] = ["README.md"]

let package = Package(
    name: "c1nk-gst",
    products: [
        // The library, target by target (import the ones you need).
        .library(name: "C1nkGst", targets: ["C1nkGLibBase", "C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkSpeaker",
                                            "C1nkPipeline", "C1nkProbes", "C1nkMedia", "C1nkViewers", "C1nkDisplay", "C1nkSignaling",
                                            "C1nkAnswerer", "C1nkService", "C1nkLocal", "C1nkDoor", "C1nkCommandLine", "C1nkHome", "C1nkMQTT",
                                            "C1nkWeb", "C1nkRTSP", "C1nkSIP"]),
        .executable(name: "c1nk-gst-answer", targets: ["c1nk-gst-answer"]),
        .executable(name: "c1nk-gst-server", targets: ["c1nk-gst-server"]),
        .executable(name: "c1nk-gst-door", targets: ["c1nk-gst-door"]),
        .executable(name: "c1nk-gst-bench", targets: ["c1nk-gst-bench"]),
        // The GStreamer plugin: libgstc1nk.so (c1nkdoorbin, c1nkstamp, c1nklatency).
        .library(name: "gstc1nk", type: .dynamic, targets: ["GstC1nk"]),
        // The SIP agent over sofia-sip: libc1nksipagent.so, loaded at run time by C1nkSIP (CSIPAgentInterface).
        .library(name: "c1nksipagent", type: .dynamic, targets: ["CSIPAgent"]),
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
            pkgConfig: "gstreamer-1.0 gstreamer-webrtc-1.0 gstreamer-sdp-1.0 gstreamer-video-1.0 gstreamer-app-1.0 gstreamer-pbutils-1.0 gstreamer-controller-1.0 gstreamer-rtp-1.0 libsoup-3.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev",
                              "libgstreamer-plugins-bad1.0-dev", "libsoup-3.0-dev"])]
        ),
        // cairo, Pango and gdk-pixbuf, opened when the screens first draw (not linked).
        .target(name: "CScreenLibraries"),
        // Blending the display's still pictures over video, per frame in C (a pad probe).
        .target(name: "CPictureBlend", dependencies: ["CGStreamer"]),
        // A call's video into the display's compositor as each frame is decoded (an element and a pad probe in C).
        .target(name: "CDisplayInput", dependencies: ["CGStreamer"]),
        // The playout-delay header extension on each packet sent to a browser (a pad probe in C).
        .target(name: "CPlayoutDelay", dependencies: ["CGStreamer"]),
        // The shipped pipeline descriptions (Pipelines/*.pipeline, plain files that installs copy
        // to share/c1nk-gst/pipelines) and where to find them; no resource bundle, whose accessor needs Foundation.
        .target(
            name: "C1nkPipelines",
            dependencies: ["C1nkGLibBase"],
            path: "Pipelines",
            exclude: ["display.pipeline", "record.pipeline", "display-record.pipeline", "audio.pipeline"]
        ),
        // The GLib bridge, in two halves, the only Swift that touches raw callbacks and pointers.
        // Its GStreamer-free half: the main context, timers and the clock, sockets, logs.
        .target(name: "C1nkGLibBase", dependencies: ["CGLib"], exclude: readme),
        // Its GStreamer half: owning wrappers (elements, bins, pads, caps, buffers), probes, buses.
        .target(name: "C1nkGLib", dependencies: ["CGLib", "CGStreamer", "C1nkGLibBase"], exclude: readme),
        // The wire protocol: Codable messages, the codec, protocol errors. FoundationEssentials only.
        .target(name: "C1nkProtocol", exclude: readme, swiftSettings: []),
        // The call as a pure state machine (events in, intents and actions out) and its typed events.
        .target(name: "C1nkCall", dependencies: ["C1nkProtocol"], exclude: readme, swiftSettings: []),
        // The process speaker's pure half: its sleep and wake (a state machine), its sounds, its level history.
        .target(name: "C1nkSpeaker", dependencies: ["C1nkGLibBase"], exclude: readme, swiftSettings: []),
        // Pipelines from text: descriptions, their errors, their lifecycle.
        .target(name: "C1nkPipeline", dependencies: ["CGStreamer", "C1nkGLib", "C1nkPipelines"], exclude: readme,
                swiftSettings: []),
        // The measurement probes used by the bench, the doctor and the plugin; sink and source checks.
        .target(name: "C1nkProbes", dependencies: ["CGStreamer", "C1nkGLib", "C1nkPipeline"], exclude: readme,
                swiftSettings: []),
        // The call's media: webrtcbin sessions, recording, repair, the speaker's mixer graph.
        .target(name: "C1nkMedia", dependencies: ["CGStreamer", "C1nkGLib", "C1nkProtocol", "C1nkPipelines", "C1nkSpeaker",
                                                  "C1nkPipeline", "C1nkProbes"],
                exclude: readme, swiftSettings: []),
        // What copies a call to someone else: the web page's viewers (their media, keyframes, talk) and the visitor's snapshot.
        .target(name: "C1nkViewers", dependencies: ["CGStreamer", "CPlayoutDelay", "C1nkGLib", "C1nkPipeline", "C1nkProbes", "C1nkMedia"],
                exclude: readme, swiftSettings: []),
        // The wall display: its screens (state machine, layout, painting), its one pipeline, ring history, evdev input.
        .target(name: "C1nkDisplay", dependencies: ["CGStreamer", "CScreenLibraries", "CPictureBlend", "CDisplayInput", "C1nkGLib", "C1nkCall",
                                                    "C1nkSpeaker", "C1nkPipeline", "C1nkProbes", "C1nkMedia"],
                exclude: readme, swiftSettings: []),
        // The `Signaller` protocol; the WebSocket client as one implementation, an in-memory one for tests.
        .target(name: "C1nkSignaling", dependencies: ["C1nkGLibBase", "C1nkProtocol", "C1nkCall"], exclude: readme,
                swiftSettings: []),
        // The answering core shared by the command and the plugin.
        .target(name: "C1nkAnswerer", dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline", "C1nkProbes",
                                                     "C1nkMedia", "C1nkViewers", "C1nkSignaling"],
                exclude: readme, swiftSettings: []),
        // Running as a service: the control socket, readiness notification, recording retention.
        .target(name: "C1nkService", dependencies: ["C1nkGLibBase", "C1nkProtocol"], exclude: readme, swiftSettings: []),
        // The local signaling server: a pure call router behind sockets, and the media relay.
        .target(name: "C1nkLocal", dependencies: ["C1nkGLibBase", "C1nkProtocol", "C1nkSignaling"], exclude: readme,
                swiftSettings: []),
        // The simulated door (live or pre-encoded media, an impaired link, congestion feedback) and a browser door.
        .target(name: "C1nkDoor", dependencies: ["CGStreamer", "C1nkGLib", "C1nkProtocol", "C1nkPipeline", "C1nkProbes",
                                                 "C1nkMedia", "C1nkSignaling", "C1nkLocal"],
                exclude: readme, swiftSettings: []),
        // libmosquitto (Debian: libmosquitto-dev) and OpenSSL for its TLS context (libssl-dev), for C1nkMQTT alone.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev", "libssl-dev"])]
        ),
        // The home's view of the answerer, pure: Home Assistant discovery, events to publications, commands parsed.
        .target(name: "C1nkHome", dependencies: ["C1nkGLibBase", "C1nkProtocol", "C1nkCall"], exclude: readme, swiftSettings: []),
        // MQTT through libmosquitto on the main context (its pointers and callbacks stay here), and the link to the home.
        .target(name: "C1nkMQTT", dependencies: ["CMosquitto", "C1nkGLibBase", "C1nkCall", "C1nkHome"], exclude: readme,
                swiftSettings: []),
        // libcrypt (Debian: libcrypt-dev): yescrypt for the web page's password.
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // The web page's server: HTTPS, logins and sessions, the JSON API, the page's files.
        .target(name: "C1nkWeb", dependencies: ["CCrypt", "C1nkGLibBase", "C1nkProtocol", "C1nkCall"], exclude: readme, swiftSettings: []),
        // gst-rtsp-server (Debian: libgstrtspserver-1.0-dev), for CRestream alone.
        .systemLibrary(
            name: "CGstRTSPServer",
            pkgConfig: "gstreamer-rtsp-server-1.0 gstreamer-rtp-1.0",
            providers: [.apt(["libgstrtspserver-1.0-dev"])]
        ),
        // The restream's server, mount and taps in C (its probes, signals and references).
        .target(name: "CRestream", dependencies: ["CGStreamer", "CGstRTSPServer"]),
        // The door live over RTSP: the server on the main context, each call's shared media, its audio gate.
        .target(name: "C1nkRTSP", dependencies: ["CGLib", "CRestream", "C1nkGLib", "C1nkCall", "C1nkMedia", "C1nkAnswerer"], exclude: readme,
                swiftSettings: []),
        // The SIP agent's functions as C1nkSIP sees them, and the loader of the agent library (dlopen, RTLD_LOCAL).
        .target(name: "CSIPAgentInterface", dependencies: ["CGLib"]),
        // sofia-sip and its GLib main-loop source (Debian: libsofia-sip-ua-glib-dev), for CSIPAgent alone.
        .systemLibrary(
            name: "CSofiaSIP",
            pkgConfig: "sofia-sip-ua-glib",
            providers: [.apt(["libsofia-sip-ua-glib-dev"])]
        ),
        // The SIP agent in C (sofia's nua on the main context: its pointers, tags and callbacks), built only as
        // libc1nksipagent.so: sofia-sip exports libnice's STUN names and must never be linked into a process with webrtcbin.
        .target(name: "CSIPAgent", dependencies: ["CGLib", "CSofiaSIP", "CSIPAgentInterface"]),
        // Phones rung over SIP: the agent on the main context, SDP offer and answer, the phone leg's rtpbin media.
        .target(name: "C1nkSIP", dependencies: ["CGLib", "CGStreamer", "CSIPAgentInterface", "C1nkGLib", "C1nkCall"], exclude: readme,
                swiftSettings: []),
        // Argument parsing shared by the commands. The standard library and Glibc only.
        .target(name: "C1nkCommandLine", exclude: readme, swiftSettings: []),
        // The plugin: GObject boilerplate (macros) in C, the behaviour in Swift.
        .target(name: "CGstC1nk", dependencies: ["CGStreamer"]),
        .target(name: "GstC1nk", dependencies: ["CGStreamer", "CGstC1nk", "C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline",
                                                "C1nkProbes", "C1nkMedia", "C1nkSignaling", "C1nkAnswerer"],
                exclude: readme, swiftSettings: []),
        // A C app that drives c1nkdoorbin over GObject alone (the plugin tests' second consumer).
        .executableTarget(name: "c1nk-gst-plugin-app", dependencies: ["CGStreamer"]),
        .executableTarget(name: "c1nk-gst-answer",
                          dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline", "C1nkProbes", "C1nkMedia",
                                         "C1nkViewers", "C1nkDisplay", "C1nkSignaling", "C1nkAnswerer", "C1nkService", "C1nkLocal", "C1nkDoor",
                                         "C1nkCommandLine", "C1nkHome", "C1nkMQTT", "C1nkWeb", "C1nkRTSP", "C1nkSIP"],
                          exclude: readme, swiftSettings: []),
        .executableTarget(name: "c1nk-gst-server", dependencies: ["C1nkGLibBase", "C1nkLocal", "C1nkCommandLine"],
                          swiftSettings: []),
        .executableTarget(name: "c1nk-gst-door",
                          dependencies: ["C1nkGLib", "C1nkProtocol", "C1nkPipeline", "C1nkMedia", "C1nkDoor", "C1nkCommandLine"],
                          swiftSettings: []),
        .executableTarget(name: "c1nk-gst-bench",
                          dependencies: ["CGStreamer", "C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkPipeline", "C1nkProbes", "C1nkMedia",
                                         "C1nkSignaling", "C1nkAnswerer", "C1nkLocal", "C1nkDoor", "C1nkCommandLine",
                                         "C1nkRTSP", "C1nkMQTT", "C1nkSIP"],
                          swiftSettings: []),
        // Tests mirror the targets. The bridge's own: the clock, the owning wrappers.
        .testTarget(name: "C1nkGLibTests", dependencies: ["CGLib", "CGStreamer", "C1nkGLibBase", "C1nkGLib"], swiftSettings: []),
        .testTarget(name: "C1nkPipelineTests", dependencies: ["C1nkGLib", "C1nkPipeline"], swiftSettings: []),
        .testTarget(name: "C1nkProbesTests", dependencies: ["C1nkProbes"], swiftSettings: []),
        // Protocol, call, speaker and router tests: no media in their build.
        .testTarget(name: "C1nkProtocolTests", dependencies: ["C1nkProtocol"], swiftSettings: []),
        .testTarget(name: "C1nkCallTests", dependencies: ["C1nkCall", "C1nkProtocol"], swiftSettings: []),
        .testTarget(name: "C1nkSpeakerTests", dependencies: ["C1nkSpeaker"], swiftSettings: []),
        .testTarget(name: "C1nkHomeTests", dependencies: ["C1nkHome", "C1nkCall"], swiftSettings: []),
        .testTarget(name: "C1nkWebTests", dependencies: ["C1nkWeb", "C1nkGLibBase", "C1nkCall"], swiftSettings: []),
        .testTarget(name: "C1nkLocalTests", dependencies: ["C1nkLocal", "C1nkProtocol"], swiftSettings: []),
        // The SIP bridge's pure parts: SDP, addresses, keys, the ring group, the door and phone policy, the password file.
        .testTarget(name: "C1nkSIPTests", dependencies: ["C1nkSIP", "C1nkCall"], swiftSettings: []),
        // The wall display's tests: its machine, layout, painting, history, blending and pipeline.
        .testTarget(name: "C1nkDisplayTests", dependencies: ["CGStreamer", "CScreenLibraries", "CPictureBlend", "C1nkGLibBase", "C1nkGLib", "C1nkCall",
                                                             "C1nkSpeaker", "C1nkPipeline", "C1nkProbes", "C1nkMedia",
                                                             "C1nkDisplay"], swiftSettings: []),
        // Video decoders that fail or hang on purpose, registered in the test process only.
        .target(name: "CTestDecoders", dependencies: ["CGStreamer"], path: "Tests/CTestDecoders"),
        // Real calls, pipelines, sockets and processes.
        .testTarget(name: "C1nkGstTests",
                    dependencies: ["CGStreamer", "CPlayoutDelay", "CTestDecoders", "C1nkGLib", "C1nkProtocol", "C1nkCall", "C1nkSpeaker", "C1nkPipeline",
                                   "C1nkProbes", "C1nkMedia", "C1nkViewers", "C1nkDisplay", "C1nkSignaling", "C1nkAnswerer", "C1nkService",
                                   "C1nkLocal", "C1nkDoor", "C1nkCommandLine", "C1nkHome", "C1nkMQTT", "C1nkWeb", "C1nkRTSP",
                                   "C1nkSIP"],
                    swiftSettings: swift5),
    ]
)
