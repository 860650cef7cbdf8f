import SegRecTime

extension VideoFileDecoder {
    /// The highest rate taken as a camera's capture rate: 240 fps.
    package static let largestNominalFrameRate = try! FrameRate(240)

    /// The rate the recorder encodes at and whose tick the segment files keep time in
    /// (``TrackTiming/timescale(for:)``): `r_frame_rate` (``realFrameRate``, the rate every
    /// timestamp is a multiple of, 30 for a 30 fps screen capture with still periods) when it
    /// is a capture rate (at most ``largestNominalFrameRate``), else ``frameRate``
    /// (`avg_frame_rate`, which a still period drags far below the capture rate).
    package var nominalFrameRate: FrameRate? {
        if let real = realFrameRate,
            Int128(real.numerator) * Int128(Self.largestNominalFrameRate.denominator) <= Int128(Self.largestNominalFrameRate.numerator)
                * Int128(real.denominator)
        {
            return real
        }
        return frameRate
    }
}
