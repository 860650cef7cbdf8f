/// Where a ``VideoDataOutput`` gets the picture of each frame: the synthetic pattern
/// (``SyntheticSensor``) or, later, decoded real footage.
///
/// A source is used by one session from one task; it need not be `Sendable`.
package protocol SensorImageSource {
    /// `true` when the buffers already carry the frame-index stamp (``FrameIndexStamp``),
    /// so the output need not stamp them again.
    var stampsFrameIndex: Bool { get }

    /// The picture of frame `index`, cropped to `dimensions` (the ratio in effect for it).
    ///
    /// - Parameters:
    ///   - index: the frame index in capture order, from 0.
    ///   - dimensions: width and height in pixels (even) the buffer must have.
    /// - Returns: an NV12 ``PixelBuffer`` of exactly `dimensions`.
    /// - Throws: source-specific errors (e.g. a decoding failure); the session passes them on.
    mutating func pixelBuffer(forFrame index: Int64, dimensions: VideoDimensions) throws -> PixelBuffer
}
