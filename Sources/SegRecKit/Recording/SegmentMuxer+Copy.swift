// SegmentMuxer for a stream copied as sent (`--copy`): files start at keyframes, each with the input's own time base.
extension SegmentMuxer {
    /// `decision` for a frame (`copied`: what it is when it is a copied packet), kept to
    /// keyframes: a packet that is not a keyframe cannot start a file, so a cut there (a
    /// segment limit reached, a timestamp gap) waits for the next keyframe and the frame is
    /// appended to the open segment. (A copied stream's size changes only at keyframes: the
    /// parser reads it there.)
    func atKeyframes(_ decision: SegmentBoundaryRule.Decision, copied: VideoFrame.CopiedPacket?) -> SegmentBoundaryRule.Decision {
        guard case .cut = decision, current != nil, let copied, !copied.isKeyframe else { return decision }
        return .append
    }
}

extension VideoFrame {
    /// What the muxer needs to know of a copied packet (``FramePixels/encoded(_:)``).
    struct CopiedPacket: Sendable {
        /// Whether it is a keyframe.
        let isKeyframe: Bool
        /// The input stream's time base denominator when its numerator is 1 (a copied
        /// segment's track ticks at it, so the packets keep their timestamps' spacing
        /// exactly), else nil.
        let timescale: Int32?
    }

    /// The copied packet's facts, nil for a picture.
    var copiedPacket: CopiedPacket? {
        guard case .encoded(let picture) = pixels else { return nil }
        let base = picture.timeBase
        return CopiedPacket(isKeyframe: picture.isKeyframe, timescale: base.num == 1 && base.den > 0 ? base.den : nil)
    }
}
