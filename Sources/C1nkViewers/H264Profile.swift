import FoundationEssentials

/// An H.264 stream's profile as GStreamer names it (`constrained-baseline`,
/// `baseline`, `main`, `high`, …), from the profile_idc and constraint flags
/// that begin both an SDP profile-level-id (`42e01f`) and an SPS. webrtcbin
/// matches these names literally, so a browser's payload type must name the
/// door's (`WHEPOffer`). Pure.
public enum H264Profile {
    /// As `gst_codec_utils_h264_get_profile` names them.
    public static func name(idc: UInt8, constraints: UInt8) -> String? {
        let set1 = constraints & 0x40 != 0, set3 = constraints & 0x10 != 0
        let set4 = constraints & 0x08 != 0, set5 = constraints & 0x04 != 0
        switch idc {
        case 66: return set1 ? "constrained-baseline" : "baseline"
        case 77: return "main"
        case 88: return "extended"
        case 100: return set4 && set5 ? "constrained-high" : set4 ? "progressive-high" : "high"
        case 110: return set3 ? "high-10-intra" : set4 ? "progressive-high-10" : "high-10"
        case 122: return set3 ? "high-4:2:2-intra" : "high-4:2:2"
        case 244: return set3 ? "high-4:4:4-intra" : "high-4:4:4"
        case 44: return "cavlc-4:4:4-intra"
        default: return nil
        }
    }

    /// `42e01f`: the first two bytes are profile_idc and the constraint flags.
    public static func name(profileLevelId: String) -> String? {
        guard profileLevelId.count == 6, let idc = UInt8(profileLevelId.prefix(2), radix: 16),
              let constraints = UInt8(profileLevelId.dropFirst(2).prefix(2), radix: 16) else { return nil }
        return name(idc: idc, constraints: constraints)
    }

    /// `sprop-parameter-sets` (base64 NAL units, comma-separated): the SPS's
    /// bytes after its NAL header.
    public static func name(spropParameterSets: String) -> String? {
        for set in spropParameterSets.split(separator: ",") {
            var text = String(set)
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            guard let nal = Data(base64Encoded: text).map(Array.init), nal.count >= 3, nal[0] & 0x1f == 7 else { continue }
            return name(idc: nal[1], constraints: nal[2])
        }
        return nil
    }

    /// The profile of a stream whose RTP caps have these fields: `profile`
    /// when set, else what profile-level-id or the SPS says.
    public static func of(profile: String?, profileLevelId: String?, spropParameterSets: String?) -> String? {
        profile ?? profileLevelId.flatMap(name(profileLevelId:)) ?? spropParameterSets.flatMap(name(spropParameterSets:))
    }

    /// The profile a browser's `a=fmtp` parameters name (`…;profile-level-id=42e01f`).
    static func name(fmtp: String) -> String? {
        let parameters = fmtp.split(whereSeparator: { $0 == ";" || $0 == " " })
        guard let value = parameters.first(where: { $0.lowercased().hasPrefix("profile-level-id=") }) else {
            return "baseline" // RFC 6184: 42000a when absent
        }
        return name(profileLevelId: String(value.dropFirst("profile-level-id=".count)))
    }
}
