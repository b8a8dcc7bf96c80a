extension FrameTally {
    /// A browser's frames, read once per `requestVideoFrameCallback`: each
    /// read frame's camera sequence number with the browser's count of
    /// frames presented so far (`presentedFrames`). A callback that runs late
    /// (reading the stamp off a canvas, on a busy machine) misses frames the
    /// browser did present; between two frames read, the skipped numbers
    /// count as shown when the browser presented exactly as many frames in
    /// between as the numbers skipped: no fewer (one it dropped) and no more
    /// (one shown twice). `reads`: in the order read.
    public static func shownSequence(reads: [(sequence: Int, presented: Int)]) -> [Int] {
        var shown: [Int] = []
        for (index, read) in reads.enumerated() {
            if index > 0 {
                let previous = reads[index - 1]
                let skipped = read.sequence - previous.sequence - 1
                if skipped > 0, previous.presented >= 0, read.presented - previous.presented == skipped + 1 {
                    shown += (previous.sequence + 1)..<read.sequence
                }
            }
            shown.append(read.sequence)
        }
        return shown
    }
}
