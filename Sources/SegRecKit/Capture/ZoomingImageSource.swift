/// Draws `videoZoomFactor` into the picture: a ``SensorImageSource`` decorator that crops
/// the centre `1/zoom` of its base source's picture and scales it back to the requested
/// size (bicubic, the media layer's `PictureScaler`), so a zoom change is visible in the
/// recording while the frame dimensions stay those of the aspect ratio (zoom never starts
/// a segment). Meant for `videoZoomFactor` events, smart framing's zoom and active Center
/// Stage's framing.
///
/// ## The frame-index stamp
/// ``VideoDataOutput`` stamps a frame *after* its source made it, and only when the source
/// does not stamp itself (`stampFrameIndex && !stampsFrameIndex`). So:
/// - a base that does **not** stamp (decoded footage): this decorator does not stamp
///   either, the output stamps the zoomed picture afterwards, and rows 0–15 read as usual;
/// - a base that **does** stamp (``SyntheticSensor``): zooming would enlarge the stamp and
///   push half of it out of the picture, so the decorator copies the base picture's top
///   ``preservedRows`` rows (luma, and the chroma rows under them) into the zoomed picture
///   unchanged: the stamp (rows 0–15, and any further stamp rows a base writes, e.g. rows
///   16–31) reads exactly as without zoom.
///
/// Concurrency: a non-`Sendable` class (it owns a `PictureScaler`); used by one session
/// from one task, like its base.
package final class ZoomingImageSource: SensorImageSource {
    /// The source whose pictures are zoomed.
    package private(set) var base: any SensorImageSource
    /// The zoom drawn into the next pictures (`AVCaptureDevice.videoZoomFactor`, ≥ 1;
    /// 1 returns the base picture untouched).
    package var videoZoomFactor: Double {
        didSet { precondition(videoZoomFactor.isFinite && videoZoomFactor >= 1, "zoom factor must be ≥ 1, got \(videoZoomFactor)") }
    }
    /// Rows at the top copied unzoomed from a stamping base (even; default 16, the stamp's
    /// rows; pass 32 for a base that also stamps rows 16–31).
    package let preservedRows: Int
    /// Where the planes of crops and zoomed pictures come from.
    package let pixelBufferPool: PixelBufferPool
    private let scaler: PictureScaler

    /// Whatever the base says: the zoomed picture keeps a stamping base's stamp rows.
    package var stampsFrameIndex: Bool { base.stampsFrameIndex }

    /// - Parameters:
    ///   - base: the source to zoom.
    ///   - videoZoomFactor: the initial zoom (≥ 1; default 1).
    ///   - preservedRows: even, ≥ 0 (default ``FrameIndexStamp/rows``).
    ///   - pixelBufferPool: the recording's pool (default: one of its own).
    package init(
        base: any SensorImageSource, videoZoomFactor: Double = 1, preservedRows: Int = FrameIndexStamp.rows,
        pixelBufferPool: PixelBufferPool = PixelBufferPool()
    ) {
        precondition(videoZoomFactor.isFinite && videoZoomFactor >= 1, "zoom factor must be ≥ 1, got \(videoZoomFactor)")
        precondition(preservedRows >= 0 && preservedRows % 2 == 0, "preservedRows must be even and ≥ 0")
        self.base = base
        self.videoZoomFactor = videoZoomFactor
        self.preservedRows = preservedRows
        self.pixelBufferPool = pixelBufferPool
        self.scaler = PictureScaler(pixelBufferPool: pixelBufferPool)
    }

    /// The size of the centre region a zoom of `factor` shows of a `dimensions` picture:
    /// each side divided by `factor`, rounded to the nearest even number (at least 2).
    package static func zoomedRegion(of dimensions: VideoDimensions, factor: Double) -> VideoDimensions {
        func side(_ length: Int) -> Int { max(2, 2 * Int((Double(length) / factor / 2).rounded())) }
        return VideoDimensions(width: min(dimensions.width, side(dimensions.width)), height: min(dimensions.height, side(dimensions.height)))
    }

    /// The base's picture of frame `index`, zoomed by ``videoZoomFactor`` to `dimensions`.
    /// - Throws: the base's errors; ``FFmpegError`` when libswscale cannot scale.
    package func pixelBuffer(forFrame index: Int64, dimensions: VideoDimensions) throws -> PixelBuffer {
        let picture = try base.pixelBuffer(forFrame: index, dimensions: dimensions)
        let region = Self.zoomedRegion(of: picture.dimensions, factor: videoZoomFactor)
        guard region != picture.dimensions else { return picture }
        let crop = picture.centreCropped(to: region, pixelBufferPool: pixelBufferPool)
        var zoomed = try scaler.scaled(crop, to: picture.dimensions)
        if base.stampsFrameIndex { Self.copyTopRows(min(preservedRows, picture.height), from: picture, into: &zoomed) }
        return zoomed
    }

    /// Copies the top `rows` luma rows (and `rows / 2` chroma rows) of `source` into `target`
    /// (same dimensions).
    private static func copyTopRows(_ rows: Int, from source: PixelBuffer, into target: inout PixelBuffer) {
        let width = source.width
        let (lumaStride, chromaStride) = (target.lumaBytesPerRow, target.chromaBytesPerRow)
        source.lumaPlane.withUnsafeBytes { from in
            target.lumaPlane.withUnsafeMutableBytes { to in
                for y in 0..<rows { (to.baseAddress! + y * lumaStride).copyMemory(from: from.baseAddress! + y * source.lumaBytesPerRow, byteCount: width) }
            }
        }
        source.chromaPlane.withUnsafeBytes { from in
            target.chromaPlane.withUnsafeMutableBytes { to in
                for y in 0..<(rows / 2) {
                    (to.baseAddress! + y * chromaStride).copyMemory(from: from.baseAddress! + y * source.chromaBytesPerRow, byteCount: width)
                }
            }
        }
    }
}
