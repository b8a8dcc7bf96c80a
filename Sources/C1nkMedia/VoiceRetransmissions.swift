import C1nkGLib

/// The door's voice is not repaired by retransmission, and its jitterbuffer
/// must not wait for one. webrtcbin 1.22 gives every jitterbuffer of a
/// bundle the NACK setting of one transceiver, so with the video's NACK on
/// the voice's jitterbuffer asks too (a door offers no RTX for its voice:
/// every request goes unanswered). Worse, a jitterbuffer that asks expects
/// each packet on time: one a little late (a busy machine, the end of a
/// silence) is declared lost at the latency, replaced by concealment, and
/// dropped when it comes, and the sound after it plays 20 ms later.
enum VoiceRetransmissions {
    /// From a streaming thread, at the first packet of the door's voice
    /// reaching a new jitterbuffer's `sink` pad (`RTPFirstPacket`): the
    /// jitterbuffer stops asking, before it handles that packet.
    static func turnOff(at sink: Pad) {
        sink.parent?.set("do-retransmission", fromString: "false")
    }
}
