import CFFmpeg

/// Owns a libswscale `SwsContext` converting pictures of one size between two pixel
/// formats (`sws_getContext` / `sws_freeContext`). Used only when an encoder cannot take
/// NV12 directly (libx265 wants YUV420P).
final class ScaleContext {
    let pointer: OpaquePointer
    /// Source size (the slice `sws_scale` reads).
    let width: Int, height: Int
    /// Destination size.
    let destinationWidth: Int, destinationHeight: Int

    /// `sws_getContext(width, height, source, width, height, destination, SWS_POINT)`:
    /// same size, so only the layout changes (NV12's interleaved CbCr → planar Cb, Cr).
    convenience init(width: Int, height: Int, source: AVPixelFormat, destination: AVPixelFormat) throws(FFmpegError) {
        try self.init(sourceWidth: width, sourceHeight: height, source: source,
                      destinationWidth: width, destinationHeight: height, destination: destination,
                      flags: SWS_POINT)
    }

    /// `sws_getContext` from `sourceWidth`x`sourceHeight` in `source` to
    /// `destinationWidth`x`destinationHeight` in `destination` (``width``/``height`` are the
    /// source's); `flags` picks the filter (e.g. `SWS_BICUBIC` when the size changes).
    init(sourceWidth: Int, sourceHeight: Int, source: AVPixelFormat,
         destinationWidth: Int, destinationHeight: Int, destination: AVPixelFormat,
         flags: Int32) throws(FFmpegError) {
        guard let context = sws_getContext(Int32(sourceWidth), Int32(sourceHeight), source,
                                           Int32(destinationWidth), Int32(destinationHeight), destination,
                                           flags, nil, nil, nil) else {
            throw FFmpegError(call: "sws_getContext", code: segrec_averror_einval(),
                              context: "\(sourceWidth)x\(sourceHeight) → \(destinationWidth)x\(destinationHeight)")
        }
        self.pointer = context
        self.width = sourceWidth
        self.height = sourceHeight
        self.destinationWidth = destinationWidth
        self.destinationHeight = destinationHeight
    }

    /// `sws_scale` of a whole picture from `sourcePlanes`/`sourceStrides` into `frame`.
    func convert(sourcePlanes: [UnsafePointer<UInt8>?], sourceStrides: [Int32], into frame: Frame) throws(FFmpegError) {
        let f = frame.pointer
        let destinationPlanes: [UnsafeMutablePointer<UInt8>?] = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, nil]
        let destinationStrides: [Int32] = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, 0]
        let rows = sws_scale(pointer, sourcePlanes, sourceStrides, 0, Int32(height),
                             destinationPlanes, destinationStrides)
        try check(rows, "sws_scale", context: "\(width)x\(height)")
    }

    deinit { sws_freeContext(pointer) }
}
