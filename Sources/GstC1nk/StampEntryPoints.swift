import C1nkMedia
import C1nkProbes

/// `c1nkstamp`: draws the benchmark's time stamp (`FrameStamp`) into a frame.
@_cdecl("c1nk_swift_stamp_frame")
func c1nkStampFrame(_ luma: UnsafeMutablePointer<UInt8>, _ stride: Int32, _ width: Int32, _ height: Int32, _ sequence: UInt64) {
    FrameStamp.stamp(luma: luma, stride: Int(stride), width: Int(width), height: Int(height), sequence: Int(truncatingIfNeeded: sequence))
}
