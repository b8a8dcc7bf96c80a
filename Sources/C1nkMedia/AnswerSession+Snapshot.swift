import C1nkGLib

/// The visitor's snapshot of the call (`VisitorSnapshot`): taken when the
/// door sends video we decode and there is somewhere to write it.
extension AnswerSession {
    func prepareSnapshot(_ target: SnapshotTarget) {
        guard offer.videoCodec != nil, let pad = inputs.pad(for: "video"),
              let path = target.file(callId: callId, recordingPath: recordingPath) else { return }
        do {
            let snapshot = try VisitorSnapshot(path: path, videoInput: pad, depayloader: offer.videoDepayloader,
                                               decoder: offer.videoDecoder)
            snapshot.onTaken = { [weak self] path in
                guard let self, !self.stopped else { return }
                self.log.info("call \(self.callId): the visitor's snapshot is \(path)")
                self.onSnapshot?(path)
            }
            snapshot.onFailed = { [weak self] reason in self?.snapshotFailed(reason) }
            self.snapshot = snapshot
        } catch {
            // Said once the answerer listens (after this initialiser); the call goes on.
            MainContext.post { [weak self] in self?.snapshotFailed("\(error)") }
        }
    }

    private func snapshotFailed(_ reason: String) {
        guard !stopped else { return }
        log.warning("call \(callId): \(reason)")
        onWarning?(reason)
    }
}
