import C1nkGLib
import CGStreamer
import FoundationEssentials

/// Finishing a call's recording: end of stream through the muxer so the file
/// gets its index and duration, within a timeout; or, when only the
/// recording fails, its file closed as it is while the call goes on.
extension AnswerSession {
    /// Ends the call's media; a recording is finalised first (end of stream
    /// through the muxer, so the file gets its index and duration), for at
    /// most `timeout` seconds. `done` runs on the main context.
    public func finish(timeout: Double = 3, _ done: @escaping () -> Void) {
        guard !stopped else { return done() }
        guard recordingPath != nil, !recordingClosed, recordingError == nil else {
            stop()
            return done()
        }
        stopped = true
        var timer: GLibTimer?
        let complete = { [weak self] in
            timer?.cancel()
            timer = nil
            guard let self, !self.recordingClosed else { return }
            self.recordingClosed = true
            self.stopPipeline()
            // A call that never got media leaves no empty file behind.
            if let path = self.recordingPath, let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size == 0 {
                try? FileManager.default.removeItem(atPath: path)
                self.recordingPath = nil
            }
            done()
        }
        recordingFinished = complete
        timer = GLibTimer(after: timeout) {
            Log.callMedia.warning("the recording did not finish in \(timeout) s; closing it as it is")
            complete()
        }
        for pad in inputs.all() {
            pad.sendEvent(gst_event_new_eos())
        }
    }

    /// Calls `recordingFinished` when end of stream reaches the file's sink.
    func watchRecordingEnd(path: String) {
        for sink in bin.sinks where sink.has(property: "location") && sink[string: "location"] == path {
            guard let pad = sink.staticPad("sink") else { continue }
            pad.addProbe(GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) { [weak self] info in
                if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self), event.pointee.type == GST_EVENT_EOS {
                    MainContext.post { self?.recordingFinished?() }
                }
                return GST_PAD_PROBE_OK
            }
        }
    }

    /// Only the recording ends: its file is closed as it is, the call goes on.
    func recordingFailed(_ reason: String) {
        guard recordingError == nil, !stopped else { return }
        recordingError = reason
        recordingBranch?.close()
        log.warning("call \(callId): the recording stopped: \(reason)")
        onRecordingFailed?(reason)
    }
}
