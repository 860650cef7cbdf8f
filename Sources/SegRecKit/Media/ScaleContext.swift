import CFFmpeg

/// Owns a libswscale `SwsContext` converting pictures of one size between two pixel
/// formats (`sws_getContext` / `sws_freeContext`). Used only when an encoder cannot take
/// NV12 directly (libx265 wants YUV420P).
final class ScaleContext {
    let pointer: OpaquePointer
    let width: Int, height: Int

    /// `sws_getContext(width, height, source, width, height, destination, SWS_POINT)`:
    /// same size, so only the layout changes (NV12's interleaved CbCr → planar Cb, Cr).
    init(width: Int, height: Int, source: AVPixelFormat, destination: AVPixelFormat) throws(FFmpegError) {
        guard let context = sws_getContext(Int32(width), Int32(height), source,
                                           Int32(width), Int32(height), destination,
                                           SWS_POINT, nil, nil, nil) else {
            throw FFmpegError(call: "sws_getContext", code: segrec_averror_einval(),
                              context: "\(width)x\(height)")
        }
        self.pointer = context
        self.width = width
        self.height = height
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
