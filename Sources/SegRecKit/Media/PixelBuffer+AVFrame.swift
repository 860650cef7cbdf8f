import CFFmpeg

extension Frame {
    /// Copies an NV12 ``PixelBuffer`` into this frame, which must be an allocated NV12 frame
    /// of the same size: two `av_image_copy_plane` calls (row-by-row memcpy, honouring
    /// both sides' strides).
    func copyNV12(from buffer: PixelBuffer) {
        let f = pointer
        buffer.lumaPlane.withUnsafeBufferPointer { luma in
            av_image_copy_plane(f.pointee.data.0, f.pointee.linesize.0,
                                luma.baseAddress, Int32(buffer.lumaBytesPerRow),
                                Int32(buffer.width), Int32(buffer.height))
        }
        buffer.chromaPlane.withUnsafeBufferPointer { chroma in
            av_image_copy_plane(f.pointee.data.1, f.pointee.linesize.1,
                                chroma.baseAddress, Int32(buffer.chromaBytesPerRow),
                                Int32(buffer.width), Int32(buffer.height / 2))
        }
    }
}

extension ScaleContext {
    /// Converts an NV12 ``PixelBuffer`` into `frame` (allocated in the context's
    /// destination format, same size) with `sws_scale`, reading planes that carry FFmpeg's
    /// padding (``PixelBuffer/withPaddedPlanes(_:)``).
    func convertNV12(_ buffer: PixelBuffer, into frame: Frame) throws(FFmpegError) {
        try buffer.withPaddedPlanes { (planes, strides) throws(FFmpegError) in
            try convert(sourcePlanes: planes, sourceStrides: strides, into: frame)
        }
    }
}
