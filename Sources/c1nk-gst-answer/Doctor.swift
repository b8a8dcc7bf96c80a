import C1nkDisplay
import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import C1nkService
import C1nkSignaling
import FoundationEssentials
import Glibc

/// `c1nk-gst-answer doctor`: checks this machine for a call with the given
/// settings, one ✔/✘ line per check with the fix, and exits 0 when a call
/// can work, 1 when not. Advisory checks (marked so) print ✘ without failing.
enum Doctor {
    struct Line {
        let ok: Bool
        let text: String
        var fix: String? = nil
        var advisory = false
    }

    static func run(_ commandLine: AnswerCommandLine) -> Int32 {
        var lines: [Line] = []
        func report(_ line: Line) {
            lines.append(line)
            var text = "\(line.ok ? "✔" : "✘") \(line.text)"
            if !line.ok, let fix = line.fix { text += "\n    fix: \(fix)" }
            if !line.ok && line.advisory { text += "\n    (advisory: a call can still work)" }
            print(text)
        }
        if !commandLine.configFiles.isEmpty { print("config: \(commandLine.configFiles.joined(separator: ", "))") }
        elements(commandLine).forEach(report)
        var media: MediaConfiguration?
        do {
            media = try loadMedia(commandLine)
            let pipeline = try media!.resolvedPipeline()
            let factories = try pipeline.elementFactories(media!.userPlaceholderValues)
            let named = factories.map { name in PipelineDescription.package(forElement: name).map { "\(name) (\($0))" } ?? name }
            report(Line(ok: true, text: "pipeline \(pipeline.path) builds: " + named.joined(separator: ", ")))
        } catch {
            report(Line(ok: false, text: "the pipeline does not build: \(error)",
                        fix: "install the package named, or correct the option or the .pipeline file"))
        }
        if let media {
            sinks(media).forEach(report)
            if DisplaySetup.screensWanted(commandLine, media: media) { report(screenLibraries()) }
            decoders(media).forEach(report)
        }
        report(deviceIdFile(commandLine.deviceIdFile ?? DeviceIdentity.defaultPath()))
        if let target = commandLine.answerer.media.recording { report(recordingFolder(target, commandLine.retention)) }
        report(server(commandLine))
        if let line = mqtt(commandLine) { report(line) }
        web(commandLine).forEach(report)
        sip(commandLine).forEach(report)
        for url in commandLine.answerer.media.ice.stunServers { report(stun(url)) }
        report(clock())
        let failed = lines.filter { !$0.ok && !$0.advisory }.count
        print(failed == 0 ? "a call can work on this machine" : "\(failed) problem\(failed == 1 ? "" : "s") to fix before a call can work")
        return failed == 0 ? 0 : 1
    }

    // MARK: - Checks

    /// The elements every call needs, with the Debian package of each.
    static let required: [(element: String, package: String, why: String)] = [
        ("webrtcbin", "gstreamer1.0-plugins-bad", "WebRTC"),
        ("nicesrc", "gstreamer1.0-nice", "ICE"),
        ("dtlsdec", "gstreamer1.0-plugins-bad", "DTLS"),
        ("srtpdec", "gstreamer1.0-plugins-bad", "SRTP"),
        ("rtpvp8depay", "gstreamer1.0-plugins-good", "VP8 video from the door"),
        ("rtph264depay", "gstreamer1.0-plugins-good", "H.264 video from the door"),
        ("vp8dec", "gstreamer1.0-plugins-good", "VP8 decoding"),
        ("avdec_h264", "gstreamer1.0-libav", "H.264 decoding"),
        ("rtpopusdepay", "gstreamer1.0-plugins-good", "the door's audio"),
        ("opusdec", "gstreamer1.0-plugins-base", "the door's audio"),
        ("opusenc", "gstreamer1.0-plugins-base", "your voice"),
        ("rtpopuspay", "gstreamer1.0-plugins-good", "your voice"),
        ("matroskamux", "gstreamer1.0-plugins-good", "recording"),
    ]

    static func elements(_ commandLine: AnswerCommandLine) -> [Line] {
        required.map { item in
            GStreamer.hasElement(item.element)
                ? Line(ok: true, text: "element \(item.element) (\(item.why))")
                : Line(ok: false, text: "element \(item.element) (\(item.why)) is missing",
                       fix: "apt-get install \(item.package)",
                       advisory: item.element == "avdec_h264" || item.element == "matroskamux" && commandLine.recordTemplate == nil)
        }
    }

    static func sinks(_ media: MediaConfiguration) -> [Line] {
        var result: [Line] = []
        if media.resolvedPipelineUses("sink") {
            let sink = media.videoSink
            if sink.hasPrefix("kmssink") {
                let cards = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).filter { $0.hasPrefix("card") }.sorted()
                if let card = cards.first {
                    let ok = access("/dev/dri/" + card, R_OK | W_OK) == 0
                    result.append(Line(ok: ok, text: "DRM device /dev/dri/\(card) \(ok ? "opens for reading and writing" : "is not accessible")",
                                       fix: "add the user to the video group (usermod -aG video USER) or run the service as c1nk"))
                } else {
                    result.append(Line(ok: false, text: "no DRM device in /dev/dri for kmssink", fix: "load the display driver, or choose --sink fakesink / autovideosink"))
                }
            } else if sink.hasPrefix("autovideosink") || sink.hasPrefix("xvimagesink") || sink.hasPrefix("ximagesink")
                        || sink.hasPrefix("waylandsink") || sink.hasPrefix("glimagesink") {
                let env = ProcessInfo.processInfo.environment
                let display = !(env["DISPLAY"] ?? "").isEmpty || !(env["WAYLAND_DISPLAY"] ?? "").isEmpty
                result.append(Line(ok: display, text: display ? "a display server for \(sink)" : "no DISPLAY or WAYLAND_DISPLAY for \(sink)",
                                   fix: "run inside the desktop session (a user unit), or use --sink kmssink on a bare display"))
            }
            let problem = SinkCheck.problem(opening: sink)
            result.append(Line(ok: problem == nil, text: problem ?? "video sink '\(sink)' opens", fix: "choose another --sink"))
        }
        if media.resolvedPipelineUses("audio-sink") {
            result.append(audio(media.audioSink, what: "speaker", option: "--audio-sink", fix: "choose another --audio-sink (e.g. alsasink device=hw:1)"))
        }
        if media.resolvedPipelineUses("audio-source") {
            result.append(audio(media.audioSource, what: "microphone", option: "--audio-source", fix: "choose another --audio-source (e.g. alsasrc device=hw:1, pulsesrc)"))
        }
        return result
    }

    /// cairo, Pango and gdk-pixbuf, which the screens draw with (opened, not linked).
    static func screenLibraries() -> Line {
        do {
            try ScreenLibraries.load()
            return Line(ok: true, text: "the screens' drawing libraries (cairo, Pango, gdk-pixbuf)")
        } catch {
            return Line(ok: false, text: "\(error)", fix: "apt-get install libpangocairo-1.0-0 libgdk-pixbuf-2.0-0, or --screens off")
        }
    }

    /// Opens an audio element; an automatic one must find a real device, not fall back to a fake one.
    static func audio(_ description: String, what: String, option: String, fix: String) -> Line {
        if let problem = SinkCheck.problem(opening: description, kind: what) {
            return Line(ok: false, text: problem, fix: fix)
        }
        let chosen = description.hasPrefix("auto") ? AutoSinkChoice.chosen(description) : nil
        if description.hasPrefix("auto"), chosen?.hasPrefix("fake") ?? true {
            return Line(ok: false, text: "\(what) '\(description)' finds no sound device (no sound card or sound server here)",
                        fix: "connect a sound device or start the sound server, or set \(option) explicitly (fakesink/fakesrc for none)")
        }
        let named = "\(what) '\(description)'" + (chosen.map { " (\($0))" } ?? "")
        // A source may open without a device and fail only when it streams: capture a few buffers.
        if what == "microphone", let problem = SourceCheck.problem(capturing: description) {
            return Line(ok: false, text: "\(named) opens but gives no sound: \(problem)", fix: fix)
        }
        return Line(ok: true, text: what == "microphone" ? "\(named) delivers sound" : "\(named) opens")
    }

    static func deviceIdFile(_ path: String) -> Line {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let folder = path.deletingLastPathComponent
            var ancestor = folder
            while !FileManager.default.fileExists(atPath: ancestor) && ancestor != "/" { ancestor = ancestor.deletingLastPathComponent }
            let ok = access(ancestor, W_OK) == 0
            return Line(ok: ok, text: ok ? "device id file \(path) will be created on the first start" : "device id file \(path) cannot be created (\(ancestor) is not writable)",
                        fix: "pass --device-id-file with a writable path, or create \(folder) for this user")
        }
        guard access(path, R_OK) == 0 else {
            return Line(ok: false, text: "device id file \(path) is not readable", fix: "chown it to the user running c1nk-gst-answer")
        }
        if info.st_mode & 0o077 != 0 {
            return Line(ok: false, text: "device id file \(path) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8)))",
                        fix: "chmod 600 \(path)")
        }
        return Line(ok: true, text: "device id file \(path) is readable and owner-only")
    }

    static func recordingFolder(_ target: RecordingTarget, _ policy: RetentionPolicy) -> Line {
        guard let retention = try? RecordingRetention(policy: policy, template: target.template) else {
            return Line(ok: false, text: "the --record pattern \(target.template) is refused for retention", fix: "add {callId} or a timestamp to the file name")
        }
        let folder = retention.folder
        guard access(folder, W_OK) == 0 else {
            return Line(ok: false, text: "recording folder \(folder) is not writable", fix: "chown it to the user running c1nk-gst-answer, or choose another --record")
        }
        guard let free = retention.freeBytes() else { return Line(ok: false, text: "cannot read the free space of \(folder)") }
        let ok = policy.allowsRecording(freeBytes: free)
        return Line(ok: ok, text: String(printf: "recording folder \(folder) is writable, %.1f GB free (floor %.1f GB)", Double(free) / 1e9, policy.minimumFreeGigabytes),
                    fix: "free space, set --keep-days/--keep-gb, or lower --min-free-gb")
    }

    /// Connects as the answerer would (TLS checked) and stops at the first answer.
    static func server(_ commandLine: AnswerCommandLine) -> Line {
        let path = commandLine.deviceIdFile ?? DeviceIdentity.defaultPath()
        let id = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingWhitespaceAndNewlines() ?? "doctor-\(UUID().uuidString)"
        var configuration = SignalClient.Configuration(url: commandLine.server, deviceId: id.isEmpty ? "doctor" : id)
        configuration.bundleId = commandLine.bundleId
        configuration.trustedCAFile = commandLine.trustedCAFile
        guard let client = try? SignalClient(configuration) else {
            return Line(ok: false, text: "cannot set up a connection to \(commandLine.server)", fix: "check --trust-ca")
        }
        var outcome: Line?
        client.onEvent = { event in
            switch event {
            case .connected: outcome = Line(ok: true, text: "server \(commandLine.server) is reachable"
                                            + (commandLine.server.hasPrefix("wss:") ? " and its TLS certificate is valid" : ""))
            case .connectFailed(let reason, _):
                outcome = Line(ok: false, text: "server \(commandLine.server) is not reachable: \(reason)",
                               fix: reason.lowercased().contains("certificate") || reason.lowercased().contains("tls")
                                   ? "check the clock, the server's certificate, or --trust-ca" : "check the network, DNS and --server")
            default: break
            }
        }
        client.start()
        MainContext.run(timeout: 8) { outcome != nil }
        client.stop()
        return outcome ?? Line(ok: false, text: "server \(commandLine.server) did not answer within 8 s", fix: "check the network, a firewall, and --server")
    }

    /// A STUN binding request over UDP with a short timeout.
    static func stun(_ url: String) -> Line {
        let rest = url.dropFirst("stun:".count)
        let parts = rest.split(separator: ":")
        let host = String(parts.first ?? "")
        let port = parts.count > 1 ? String(parts[1]) : "3478"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &result) == 0, let info = result else {
            return Line(ok: false, text: "STUN \(url): cannot resolve \(host)", fix: "check DNS, or --stun none on a LAN-only setup", advisory: true)
        }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return Line(ok: false, text: "STUN \(url): no UDP socket", advisory: true) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42]
        for _ in 0..<12 { request.append(UInt8.random(in: 0...255)) }
        let started = MainContext.monotonicSeconds()
        _ = request.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, info.pointee.ai_addr, info.pointee.ai_addrlen) }
        var reply = [UInt8](repeating: 0, count: 512)
        let count = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let ms = Int((MainContext.monotonicSeconds() - started) * 1000)
        guard count >= 20, reply[0] == 0x01, reply[1] == 0x01, Array(reply[8..<20]) == Array(request[8..<20]) else {
            return Line(ok: false, text: "STUN \(url) did not answer within 2 s", fix: "allow outgoing UDP, choose another --stun, or set a --turn server", advisory: true)
        }
        return Line(ok: true, text: "STUN \(url) answered in \(ms) ms")
    }

    /// Whether the clock is synchronised (NTP), as systemd knows it; wss://
    /// certificate checks fail with a clock far off.
    static func clock() -> Line {
        var synced: Bool?
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 { synced = true }
        if synced == nil, let output = run("/usr/bin/timedatectl", ["show", "-p", "NTPSynchronized", "--value"]) {
            synced = output.trimmingWhitespaceAndNewlines() == "yes"
        }
        guard let synced else {
            return Line(ok: false, text: "cannot tell whether the clock is synchronised (no timedatectl answer)",
                        fix: "enable time synchronisation (systemctl enable --now systemd-timesyncd, or chrony)", advisory: true)
        }
        return Line(ok: synced, text: synced ? "the clock is synchronised" : "the clock is not synchronised (NTP)",
                    fix: "enable time synchronisation (systemctl enable --now systemd-timesyncd, or chrony)", advisory: true)
    }

    private static func run(_ executable: String, _ arguments: [String]) -> String? {
        guard access(executable, X_OK) == 0 else { return nil }
        guard let process = try? ChildProcess(executable, arguments, output: .pipe, error: .null),
              let output = process.outputPipe else { return nil }
        let data = readToEnd(output)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
