/// One ICE candidate in the app protocol's JSON shape:
/// `{"candidate": "...", "sdpMid": "0", "sdpMLineIndex": 0}`.
public struct IceCandidate: Codable, Equatable, Sendable {
    public var candidate: String
    public var sdpMid: String?
    public var sdpMLineIndex: Int

    public init(candidate: String, sdpMid: String?, sdpMLineIndex: Int) {
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(candidate, forKey: .candidate)
        // sdpMid is written even when null: the field is always there, as browsers write it.
        try container.encode(sdpMid, forKey: .sdpMid)
        try container.encode(sdpMLineIndex, forKey: .sdpMLineIndex)
    }
}
