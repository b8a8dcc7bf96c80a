import C1nkMedia

/// `doctor`'s video decoders: each codec's decoders on this machine, highest
/// rank first, hardware ones probed with one keyframe, and the one that
/// `--decoder` (auto by default) would take.
extension Doctor {
    static func decoders(_ media: MediaConfiguration) -> [Line] {
        do {
            try VideoDecoders.apply(media.decoder)
        } catch {
            return [Line(ok: false, text: "\(error)", fix: "choose --decoder auto, software or one of the decoders listed")]
        }
        var probed: [String: DecoderProbe.Outcome] = [:]
        if media.decoder != .software {
            for (decoder, codec) in VideoDecoders.hardwareToProbe() {
                let outcome = DecoderProbe.run(decoder, codec: codec)
                probed[decoder] = outcome
                if let failure = outcome.failure { VideoDecoders.giveUp(decoder, reason: "its probe failed: \(failure)") }
            }
        }
        var lines: [Line] = []
        for (codec, _) in VideoDecoders.codedCaps {
            let all = VideoDecoders.allDecoders(for: codec)
            guard !all.isEmpty else { continue }
            let listed = all.map { candidate -> String in
                var text = candidate.name + (candidate.hardware ? " (hardware" : " (software")
                if let outcome = probed[candidate.name] {
                    text += outcome.failure.map { ", its probe failed: \($0)" } ?? ", decoded a keyframe in \(outcome.milliseconds) ms"
                } else if candidate.rank == 0 {
                    text += ", not used"
                }
                return text + ")"
            }
            let chosen = VideoDecoders.choice(for: codec)
            lines.append(Line(ok: true, text: "\(codec) decoders: \(listed.joined(separator: ", ")); --decoder \(media.decoder) takes "
                                  + (chosen.map { "\($0.name)" } ?? "none")))
        }
        return lines
    }
}
