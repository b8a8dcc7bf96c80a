import C1nkGLib
import C1nkMedia

extension VisitorSnapshot {
    /// Takes the visitor's snapshot of `session` when the door sends video
    /// this machine plays and `target` gives somewhere to write it; the
    /// session keeps it and stops it with the call. What happens is said
    /// through the session's `onSnapshot` and `onWarning`.
    public static func attach(to session: AnswerSession, target: SnapshotTarget) {
        guard let video = session.videoInput,
              let path = target.file(callId: session.callId, recordingPath: session.recordingPath) else { return }
        let callId = session.callId
        do {
            let snapshot = try VisitorSnapshot(path: path, videoInput: video.pad, depayloader: video.depayloader,
                                               decoder: video.decoder)
            snapshot.onTaken = { [weak session] path in
                guard let session, !session.isStopped else { return }
                Log.viewers.info("call \(callId): the visitor's snapshot is \(path)")
                session.onSnapshot?(path)
            }
            snapshot.onFailed = { [weak session] reason in failed(session, reason) }
            session.attach(snapshot)
        } catch {
            // Said once the answerer listens (after the session's factory returns); the call goes on.
            MainContext.post { [weak session] in failed(session, "\(error)") }
        }
    }

    private static func failed(_ session: AnswerSession?, _ reason: String) {
        guard let session, !session.isStopped else { return }
        Log.viewers.warning("call \(session.callId): \(reason)")
        session.onWarning?(reason)
    }
}
