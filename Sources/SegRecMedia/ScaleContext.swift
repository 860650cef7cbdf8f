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
        try self.init(
            sourceWidth: width, sourceHeight: height, source: source, destinationWidth: width, destinationHeight: height, destination: destination,
            flags: SWS_POINT)
    }

    /// `sws_getContext` from `sourceWidth`x`sourceHeight` in `source` to
    /// `destinationWidth`x`destinationHeight` in `destination` (``width``/``height`` are the
    /// source's); `flags` picks the filter (e.g. `SWS_BICUBIC` when the size changes).
    init(sourceWidth: Int, sourceHeight: Int, source: AVPixelFormat, destinationWidth: Int, destinationHeight: Int, destination: AVPixelFormat, flags: Int32)
        throws(FFmpegError)
    {
        guard
            let context = sws_getContext(
                Int32(sourceWidth), Int32(sourceHeight), source, Int32(destinationWidth), Int32(destinationHeight), destination, flags, nil, nil, nil)
        else {
            throw FFmpegError(
                call: "sws_getContext", code: segrec_averror_einval(), context: "\(sourceWidth)x\(sourceHeight) → \(destinationWidth)x\(destinationHeight)")
        }
        self.pointer = context
        self.width = sourceWidth
        self.height = sourceHeight
        self.destinationWidth = destinationWidth
        self.destinationHeight = destinationHeight
    }

    /// A context made with `sws_alloc_context` and AVOptions (`srcw`, `srch`, `src_format`,
    /// `dstw`, `dsth`, `dst_format`, `sws_flags`) plus `alphablend`, then
    /// `sws_init_context`: with `compositeAlphaOverBlack`, a source with an alpha channel is
    /// blended over black (`alphablend=uniform_color`, FFmpeg 5.1) instead of having its
    /// alpha dropped, which would show whatever colour the transparent pixels hold.
    /// - Throws: ``FFmpegError`` (EINVAL) when libswscale cannot convert these formats or sizes.
    init(
        sourceWidth: Int, sourceHeight: Int, source: AVPixelFormat, destinationWidth: Int, destinationHeight: Int, destination: AVPixelFormat, flags: Int32,
        compositeAlphaOverBlack: Bool
    ) throws(FFmpegError) {
        let described = "\(sourceWidth)x\(sourceHeight) → \(destinationWidth)x\(destinationHeight)"
        guard let context = sws_alloc_context() else { throw FFmpegError(call: "sws_alloc_context", code: segrec_averror_enomem(), context: described) }
        let raw = UnsafeMutableRawPointer(context)
        var result: Int32 = 0
        for (key, value) in [("srcw", sourceWidth), ("srch", sourceHeight), ("dstw", destinationWidth), ("dsth", destinationHeight), ("sws_flags", Int(flags))]
        where result >= 0 { result = av_opt_set_int(raw, key, Int64(value), 0) }
        if result >= 0 { result = av_opt_set_pixel_fmt(raw, "src_format", source, 0) }
        if result >= 0 { result = av_opt_set_pixel_fmt(raw, "dst_format", destination, 0) }
        if result >= 0, compositeAlphaOverBlack { result = av_opt_set(raw, "alphablend", "uniform_color", 0) }
        if result >= 0 { result = sws_init_context(context, nil, nil) }
        guard result >= 0 else {
            sws_freeContext(context)
            throw FFmpegError(call: "sws_init_context", code: result < 0 ? result : segrec_averror_einval(), context: described)
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
        let rows = sws_scale(pointer, sourcePlanes, sourceStrides, 0, Int32(height), destinationPlanes, destinationStrides)
        try check(rows, "sws_scale", context: "\(width)x\(height)")
    }

    deinit { sws_freeContext(pointer) }
}
