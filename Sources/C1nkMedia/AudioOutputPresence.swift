import Glibc

/// Whether this machine has anything to play sound on, told from files and
/// the environment alone: an ALSA playback device, a PulseAudio or PipeWire
/// server, a JACK server, an OSS device.
///
/// `autoaudiosink` learns the same by loading and opening every audio sink
/// plug-in in turn (PulseAudio, JACK, OSS, OpenAL…). On a machine with no
/// sound at all, a home server, each stays loaded for the life of the
/// process with its libraries, some 4.5 MB resident, and the sink it ends
/// with is a silent one. Asked first, the speaker goes silent at once
/// (`SpeakerOutput`), and says so.
public struct AudioOutputPresence {
    var environment: [String: String]
    /// Where ALSA's device nodes are (`/dev/snd`).
    var soundDevices = "/dev/snd"
    /// Where an OSS device would be.
    var ossDevice = "/dev/dsp"
    /// Where a JACK server leaves its shared memory.
    var sharedMemory = "/dev/shm"

    public init(environment: [String: String]) { self.environment = environment }

    /// The process's own view.
    public static var current: AudioOutputPresence {
        var environment: [String: String] = [:]
        for name in ["PULSE_SERVER", "XDG_RUNTIME_DIR", "JACK_DEFAULT_SERVER"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return AudioOutputPresence(environment: environment)
    }

    /// What was found to play on, or nil for nothing.
    public var found: String? {
        if let server = environment["PULSE_SERVER"], !server.isEmpty { return "the sound server \(server) (PULSE_SERVER)" }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(getuid())"
        for socket in ["pulse/native", "pipewire-0"] where exists(runtime + "/" + socket) {
            return "a sound server (\(runtime)/\(socket))"
        }
        if let device = entries(soundDevices).first(where: { $0.hasPrefix("pcmC") && $0.hasSuffix("p") }) {
            return "the ALSA device \(soundDevices)/\(device)"
        }
        // Not `jack_db-UID`: JACK's client library leaves that behind, server or none.
        if environment["JACK_DEFAULT_SERVER"] != nil
            || entries(sharedMemory).contains(where: { $0.hasPrefix("jack") && !$0.hasPrefix("jack_db") }) {
            return "a JACK server"
        }
        if exists(ossDevice) { return "the OSS device \(ossDevice)" }
        return nil
    }

    /// What the speaker is told to use when `autoaudiosink` is asked for
    /// and nothing is there: a sink that keeps the speaker's timing.
    package static let silentSink = "fakesink sync=true"

    private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    private func entries(_ directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
