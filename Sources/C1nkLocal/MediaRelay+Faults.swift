/// What goes wrong on the way, on demand: a link that drops everything for
/// a while (a router rebooting, a Wi-Fi handover) and packets cut short
/// (a broken middlebox). Tests call these mid-call; the relay's thread
/// applies them to the packets it moves.
extension MediaRelay {
    /// Drops every packet, both ways (media, RTCP, ICE and DTLS alike), for
    /// `seconds` from now.
    public func blackout(seconds: Double) {
        let until = Self.now() + max(0, seconds)
        state.withLock { $0.blackoutUntil = max($0.blackoutUntil, until) }
    }

    /// Whether a blackout is in progress.
    public var isBlackedOut: Bool {
        let now = Self.now()
        return state.withLock { now < $0.blackoutUntil }
    }

    /// Packets dropped by blackouts so far.
    public var packetsBlackedOut: Int { state.withLock { $0.packetsBlackedOut } }

    /// The next `count` packets from the door leave cut to half their
    /// length: SRTP's authentication tag (or a STUN or DTLS record's end)
    /// goes missing, and the other side must throw them away.
    public func truncateFromDoor(next count: Int) {
        state.withLock { $0.doorPacketsToTruncate += max(0, count) }
    }

    /// Packets from the door still to be cut short.
    public var doorPacketsToTruncate: Int { state.withLock { $0.doorPacketsToTruncate } }
}
