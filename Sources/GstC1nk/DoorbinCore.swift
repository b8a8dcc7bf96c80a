import C1nkAnswerer
import C1nkCall
import C1nkGLib
import C1nkMedia
import C1nkSignaling
import Foundation

/// The answering core of one `c1nkdoorbin`: the same `Answerer` as
/// `c1nk-gst-answer`, wired to the element instead of a command line.
/// Lives on the plugin's context thread (`PluginContext`).
///
/// Media goes through the element's inter channels: each call renders its
/// video into `intervideosink` and the door's voice (the speaker) into
/// `interaudiosink`, which the bin's `intervideosrc`/`interaudiosrc` read;
/// the call's microphone is `interaudiosrc` on the channel the `mic` pad
/// feeds. The element plays no ringtone: an application rings on `ringing`.
final class DoorbinCore {
    struct Channels {
        var video: String
        var audio: String
        var mic: String
    }

    private let element: PluginElement
    private let client: SignalClient
    private let answerer: Answerer
    private let events = EventLog()

    /// Connects to the server; throws what the user must fix.
    init(element: PluginElement, settings: DoorbinSettings, channels: Channels) throws {
        self.element = element
        let identity = try DeviceIdentity.loadOrCreate(at: settings.deviceIdFile ?? DeviceIdentity.defaultPath()) {
            Log.plugin.warning("c1nkdoorbin: \($0)")
        }
        var configuration = SignalClient.Configuration(url: settings.server, deviceId: identity.id)
        configuration.trustedCAFile = settings.trustedCAFile
        client = try SignalClient(configuration)
        client.onDeviceIdAssigned = { id in
            do { _ = try DeviceIdentity.store(id, at: identity.path) } catch { Log.plugin.warning("c1nkdoorbin: \(error)") }
        }
        var options = Answerer.Options()
        options.answerMode = settings.answerMode
        options.answerDelay = settings.answerDelay
        options.ringtone = nil
        options.media.latencyMilliseconds = settings.latencyMilliseconds
        options.media.videoRepairWindowMilliseconds = settings.repairWindowMilliseconds
        if let stun = settings.stunServers { options.media.ice.stunServers = stun }
        if let turn = settings.turnServer { options.media.ice.turnServers = [turn] }
        if let address = settings.localAddress { options.media.ice.localAddresses = [address] }
        options.media.videoSink = "intervideosink channel=\(channels.video)"
        options.media.audioSink = "interaudiosink channel=\(channels.audio)"
        options.media.audioSource = "interaudiosrc channel=\(channels.mic)"
        options.media.videoCodecMemory = VideoCodecMemory(besideDeviceIdFile: identity.path)
        options.media = try options.media.validated()
        answerer = Answerer(signaller: client, options: options, events: events)
        events.onEvent = { [weak self] event, object in self?.publish(event, object) }
        answerer.start()
    }

    /// Ends a call in progress (the door hears `hangup`) and disconnects.
    func stop() {
        answerer.shutdown()
    }

    /// An action signal: accept, reject, open, hangup, mute, unmute.
    func command(_ word: String) {
        if let problem = answerer.command(word) {
            events.emit(.error(callId: answerer.currentCallId, message: "\(word): \(problem)"))
        }
    }

    /// Every event as a `c1nk-event` element message (the fields of its JSON
    /// line); the call's milestones also as signals.
    private func publish(_ event: CallEvent, _ object: [String: Any]) {
        switch event {
        case let .ringing(callId, doorName):
            element.setDoorName(doorName)
            element.emit("ringing", callId, doorName)
        case let .ended(callId, reason, _, _, _):
            element.emit("ended", callId, reason.rawValue)
        case .doorOpened(let callId):
            element.emit("door-opened", callId, nil)
        default:
            break
        }
        element.post(ElementMessage.structure(named: "c1nk-event", object))
    }
}
