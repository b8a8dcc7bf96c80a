import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia

/// A door and an answering session connected directly in this process
/// (candidates handed across), for the audio tests: what the door heard,
/// what the speaker played, and whether the call went on.
final class AudioLoopback {
    let door: DoorMediaSession
    private(set) var session: AnswerSession?
    private(set) var connected = false
    private(set) var failures: [String] = []
    private(set) var audioProblems: [String] = []
    private(set) var answer: String?
    private(set) var heard: [(time: Double, level: Double)] = []
    private(set) var bands: [(time: Double, band: String, level: Double)] = []

    /// `rewriteOffer` changes the door's offer before the answerer sees it.
    init(door doorOptions: DoorMediaSession.Options = DoorMediaSession.Options(),
         configuration: MediaConfiguration = MediaSessionTests.testConfiguration(),
         speaker: SpeakerOutput? = nil,
         rewriteOffer: @escaping (String) -> String = { $0 }) throws {
        var options = doorOptions
        options.ice = .loopback
        door = try DoorMediaSession(options: options)
        door.onHeardLevel = { [unowned self] in heard.append((MainContext.monotonicSeconds(), $0)) }
        door.onHeardBand = { [unowned self] in bands.append((MainContext.monotonicSeconds(), $0, $1)) }
        door.onFailure = { [unowned self] in failures.append("door: \($0)") }
        door.onOffer = { [unowned self] offer in
            do {
                let session = try AnswerSession(callId: "c", offer: rewriteOffer(offer), configuration: configuration,
                                                audioEnabled: false, speaker: speaker)
                session.onAnswer = { [unowned self] in
                    answer = $0
                    door.applyAnswer($0)
                }
                session.onLocalCandidate = { [unowned self] in door.addRemoteCandidate($0) }
                session.onConnected = { [unowned self] in connected = true }
                session.onFailure = { [unowned self] in failures.append($0) }
                session.onAudioProblem = { [unowned self] in audioProblems.append($0) }
                self.session = session
            } catch {
                failures.append("\(error)")
            }
        }
        door.onLocalCandidate = { [unowned self] in session?.addRemoteCandidate($0) }
    }

    /// Waits for the connection and some video.
    func waitForVideo(frames: Int = 15, file: StaticString = #filePath, line: UInt = #line) {
        waitUntil("connected", timeout: 15, file: file, line: line) { connected || !failures.isEmpty }
        waitUntil("video frames", timeout: 15, file: file, line: line) { (session?.framesRendered ?? 0) > frames || !failures.isEmpty }
    }

    func loudestHeard(since start: Double, until end: Double = .infinity) -> Double {
        heard.filter { $0.time >= start && $0.time <= end }.map(\.level).max() ?? -.infinity
    }

    /// Mean power (dBFS) of a band the door heard.
    func meanBand(_ band: String, since start: Double, until end: Double = .infinity) -> Double {
        let levels = bands.filter { $0.band == band && $0.time >= start && $0.time <= end }.map(\.level)
        guard !levels.isEmpty else { return -.infinity }
        let power = levels.map { $0.isFinite ? pow(10, $0 / 10) : 0 }.reduce(0, +) / Double(levels.count)
        return power > 0 ? 10 * log10(power) : -200
    }

    func stop() {
        session?.stop()
        door.stop()
    }
}
