import C1nkCall
import C1nkMedia
import C1nkPipeline
import C1nkProtocol
import FoundationEssentials

/// A server's callId through to what is built from it: the recording's and
/// the snapshot's file names, and the text a recording pipeline is parsed
/// from. Whatever the id holds, each file stays in its folder and the
/// parser's text is the description's own. A broken rule traps, so the
/// fuzzer reports it as a crash.
extension FuzzInput {
    /// Folders with a conversion in them, so the targets do not ask the disk whether they exist.
    static let recordingTemplate = "/c1nk-fuzz-recordings/%Y/{callId}-%H.mkv"
    static let snapshotTemplate = "/c1nk-fuzz-snapshots/%Y/{callId}.jpg"
    static let recordingDescription = """
        identity name=video-in ! queue ! matroskamux name=mux ! filesink location={record-location}
        identity name=audio-in ! fakesink
        """

    static func paths(callId: String) {
        guard let recording = try? RecordingTarget(recordingTemplate), let snapshot = try? SnapshotTarget(snapshotTemplate),
              let description = try? PipelineDescription(name: "fuzz", path: "fuzz.pipeline", text: recordingDescription) else {
            preconditionFailure("the fuzz targets' own templates are valid")
        }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let file = recording.file(callId: callId, videoCodec: "VP8", date: date) { _ in }.path
        precondition(staysIn("/c1nk-fuzz-recordings/", file), "a recording left its folder: \(file)")
        if let picture = snapshot.file(callId: callId, recordingPath: file, date: date) {
            precondition(staysIn("/c1nk-fuzz-snapshots/", picture), "a snapshot left its folder: \(picture)")
        }
        let parsed = description.parserLines(["record-location": file])
        precondition(parsed.paths.values.contains(file) && !parsed.lines.joined().contains(file),
                     "a path reached the parser's text")
        precondition(parsed.lines == description.parserLines(["record-location": "/x.mkv"]).lines,
                     "the parser's text depends on the call")
    }

    /// `path` is one file name directly below a year folder of `folder`.
    private static func staysIn(_ folder: String, _ path: String) -> Bool {
        guard path.hasPrefix(folder) else { return false }
        let rest = path.dropFirst(folder.count).split(separator: "/", omittingEmptySubsequences: false)
        return rest.count == 2 && rest[0] == "2023" && !rest[1].hasPrefix(".") && rest[1].utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
