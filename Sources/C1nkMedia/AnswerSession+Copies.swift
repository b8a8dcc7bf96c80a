import C1nkGLib

/// Something that copies the call's media elsewhere (the visitor's
/// snapshot, …), made by a layer above this one and ended with the call.
public protocol CallMediaCopy: AnyObject {
    /// Ends the copy; called once, on the main context, when the call's pipeline is released.
    func stop()
}

/// Where the door's video enters the call, for a copy that decodes it on
/// its own: the pad (RTP, before any depayloader) and the elements that
/// depayload and decode the door's codec.
public struct CallVideoInput {
    public let pad: Pad
    public let depayloader: String
    public let decoder: String
}

extension AnswerSession {
    /// The door's video as it enters the call, when it sends video this machine can play.
    public var videoInput: CallVideoInput? {
        guard offer.videoCodec != nil, let pad = inputs.pad(for: "video") else { return nil }
        return CallVideoInput(pad: pad, depayloader: offer.videoDepayloader, decoder: offer.videoDecoder)
    }

    /// Whether the call's media has been stopped (its copies end with it).
    public var isStopped: Bool { stopped }

    /// Keeps `copy` until the call's pipeline is released, then stops it.
    /// A call already stopped stops it at once.
    public func attach(_ copy: CallMediaCopy) {
        guard !stopped else { copy.stop(); return }
        copies.append(copy)
    }

    func stopCopies() {
        let ending = copies
        copies = []
        for copy in ending { copy.stop() }
    }
}
