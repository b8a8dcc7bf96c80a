/// The audio codecs a door may offer and what this machine can do with them.
enum AudioCodecs {
    /// Encoding name → (depayloader, decoder), in our order of preference.
    static let table: [(name: String, depayloader: String, decoder: String)] = [
        ("OPUS", "rtpopusdepay", "opusdec"),
        ("PCMU", "rtppcmudepay", "mulawdec"),
        ("PCMA", "rtppcmadepay", "alawdec"),
        ("G722", "rtpg722depay", "avdec_g722"),
    ]

    /// Whether an offered encoding can be depayloaded and decoded here.
    static func canDecode(_ name: String) -> Bool {
        guard let entry = table.first(where: { $0.name == name.uppercased() }) else { return false }
        return GStreamer.hasElement(entry.depayloader) && GStreamer.hasElement(entry.decoder)
    }

    /// The encodings this machine decodes.
    static func decodable() -> [String] { table.map(\.name).filter(canDecode) }

    /// Payload formats that are not a voice codec of their own.
    static let auxiliary: Set<String> = ["TELEPHONE-EVENT", "CN", "RED", "ULPFEC", "RTX", "FLEXFEC-03"]
}
