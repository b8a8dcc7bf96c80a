/// The audio codecs a door may offer and what this machine can do with them.
enum AudioCodecs {
    /// Encoding name → (depayloader, decoder), in our order of preference.
    static let table: [(name: String, depayloader: String, decoder: String)] = [
        ("OPUS", "rtpopusdepay", "opusdec"),
        ("PCMU", "rtppcmudepay", "mulawdec"),
        ("PCMA", "rtppcmadepay", "alawdec"),
        ("G722", "rtpg722depay", "avdec_g722"),
    ]

    /// Whether an offered encoding can be depayloaded and decoded here (the
    /// GStreamer registry's answer, `CodecSupport`).
    static func canDecode(_ name: String) -> Bool {
        CodecSupport.playable(name.uppercased(), media: "audio") != nil
    }

    /// The encodings this machine decodes.
    static func decodable() -> [String] { table.map(\.name).filter(canDecode) }

    /// Payload formats that are not a voice codec of their own.
    static var auxiliary: Set<String> { CodecSupport.repairEncodings }
}
