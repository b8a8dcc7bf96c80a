import XCTest
@testable import C1nkMedia

/// Whether the machine has a speaker, told from files and the environment:
/// nothing is found in empty folders; each kind of output is.
final class AudioOutputPresenceTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "c1nk-audio-presence-" + UUID().uuidString.prefix(8)
        for folder in ["snd", "shm", "run"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
        super.tearDown()
    }

    private func presence(_ environment: [String: String] = [:]) -> AudioOutputPresence {
        var presence = AudioOutputPresence(environment: ["XDG_RUNTIME_DIR": root + "/run"].merging(environment) { $1 })
        presence.soundDevices = root + "/snd"
        presence.sharedMemory = root + "/shm"
        presence.ossDevice = root + "/dsp"
        return presence
    }

    private func touch(_ path: String) {
        FileManager.default.createFile(atPath: root + "/" + path, contents: nil)
    }

    func testNothingToPlayOn() throws {
        // A capture device and a control node are not a speaker.
        touch("snd/pcmC0D0c")
        touch("snd/controlC0")
        // What JACK's client library leaves behind, server or none.
        try FileManager.default.createDirectory(atPath: root + "/shm/jack_db-0", withIntermediateDirectories: true)
        XCTAssertNil(presence().found)
    }

    func testEachKindOfOutputIsFound() throws {
        XCTAssertEqual(presence(["PULSE_SERVER": "tcp:10.0.0.2"]).found, "the sound server tcp:10.0.0.2 (PULSE_SERVER)")
        touch("snd/pcmC1D0p")
        XCTAssertEqual(presence().found, "the ALSA device \(root)/snd/pcmC1D0p")
        try FileManager.default.removeItem(atPath: root + "/snd/pcmC1D0p")
        try FileManager.default.createDirectory(atPath: root + "/run/pulse", withIntermediateDirectories: true)
        touch("run/pulse/native")
        XCTAssertEqual(presence().found, "a sound server (\(root)/run/pulse/native)")
        try FileManager.default.removeItem(atPath: root + "/run/pulse")
        touch("run/pipewire-0")
        XCTAssertNotNil(presence().found)
        try FileManager.default.removeItem(atPath: root + "/run/pipewire-0")
        touch("shm/jack-1000-0")
        XCTAssertEqual(presence().found, "a JACK server")
        try FileManager.default.removeItem(atPath: root + "/shm/jack-1000-0")
        touch("dsp")
        XCTAssertEqual(presence().found, "the OSS device \(root)/dsp")
    }

    /// The default speaker on a machine with none: a silent sink at once,
    /// with no audio sink plug-in loaded to find that out.
    func testTheDefaultSpeakerIsSilentAtOnceWhereThereIsNone() throws {
        let none = presence()
        let speaker = try SpeakerOutput(sink: "autoaudiosink", presence: none)
        XCTAssertEqual(speaker.sinkDescription, AudioOutputPresence.silentSink)
        XCTAssertNil(speaker.problem)
        touch("snd/pcmC0D0p")
        let other = try SpeakerOutput(sink: "fakesink", presence: presence())
        XCTAssertEqual(other.sinkDescription, "fakesink", "a sink given by name is kept")
    }
}
