import CFFmpeg

extension PixelBuffer.PixelFormat {
    /// FFmpeg's name for the layout: `AV_PIX_FMT_NV12` or `AV_PIX_FMT_YUV420P`.
    var avPixelFormat: AVPixelFormat { self == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P }
}

extension PixelBuffer {
    /// The top-left `dimensions` of `frame` (NV12 or yuv420p as `layout` says) copied into
    /// padded planes from `pool`: packed rows; for yuv420p the Cb rows, then the Cr rows, in
    /// one plane. One `av_image_copy_plane` per plane.
    init(copying frame: AVFrame, dimensions: VideoDimensions, layout: PixelFormat, pool: PixelBufferPool) {
        let w = dimensions.width
        let h = dimensions.height
        let chromaStride = Self.minimumChromaBytesPerRow(width: w, pixelFormat: layout)
        var luma = pool.makePlane(byteCount: Self.paddedLumaByteCount(bytesPerRow: w, height: h))
        var chroma = pool.makePlane(byteCount: Self.paddedChromaByteCount(bytesPerRow: chromaStride, height: h, pixelFormat: layout))
        luma.withUnsafeMutableBufferPointer { plane in av_image_copy_plane(plane.baseAddress, Int32(w), frame.data.0, frame.linesize.0, Int32(w), Int32(h)) }
        chroma.withUnsafeMutableBufferPointer { plane in
            av_image_copy_plane(plane.baseAddress, Int32(chromaStride), frame.data.1, frame.linesize.1, Int32(chromaStride), Int32(h / 2))
            if layout == .yuv420p {
                av_image_copy_plane(
                    plane.baseAddress! + chromaStride * (h / 2), Int32(chromaStride), frame.data.2, frame.linesize.2, Int32(chromaStride), Int32(h / 2))
            }
        }
        self.init(
            width: w, height: h, lumaPlane: consume luma, lumaBytesPerRow: w, chromaPlane: consume chroma, chromaBytesPerRow: chromaStride, pixelFormat: layout)
        clearPadding()
    }

    /// Plane start offsets in ``lumaPlane`` / ``chromaPlane`` and strides, in FFmpeg's plane
    /// order: NV12 (Y, CbCr), yuv420p (Y, Cb, Cr; Cr starts `height / 2` chroma rows in).
    var chromaPlaneOffsets: [Int] { pixelFormat == .nv12 ? [0] : [0, chromaBytesPerRow * (height / 2)] }
}

/// Keeps a picture's planes alive while `AVBufferRef`s made by ``Frame/reference(_:recyclingInto:)``
/// point into them, and gives them back to the pool when the last reference is released
/// (its `deinit` runs on whichever thread unreferences last: an encoder thread, or ours).
private final class ReferencedPlanes: Sendable {
    let buffer: PixelBuffer
    let pool: PixelBufferPool?

    init(_ buffer: PixelBuffer, pool: PixelBufferPool?) {
        self.buffer = buffer
        self.pool = pool
    }

    deinit { pool?.recycle(buffer) }
}

extension Frame {
    /// Copies a ``PixelBuffer`` into this frame, which must be an allocated frame of the
    /// same size and pixel format: one `av_image_copy_plane` per plane (row-by-row memcpy,
    /// honouring both sides' strides).
    func copyPlanes(from buffer: PixelBuffer) {
        let f = pointer
        let destinations = [(f.pointee.data.0, f.pointee.linesize.0), (f.pointee.data.1, f.pointee.linesize.1), (f.pointee.data.2, f.pointee.linesize.2)]
        buffer.lumaPlane.withUnsafeBufferPointer { luma in
            av_image_copy_plane(
                destinations[0].0, destinations[0].1, luma.baseAddress, Int32(buffer.lumaBytesPerRow), Int32(buffer.width), Int32(buffer.height))
        }
        let rowBytes = PixelBuffer.minimumChromaBytesPerRow(width: buffer.width, pixelFormat: buffer.pixelFormat)
        buffer.chromaPlane.withUnsafeBufferPointer { chroma in
            for (plane, offset) in buffer.chromaPlaneOffsets.enumerated() {
                av_image_copy_plane(
                    destinations[plane + 1].0, destinations[plane + 1].1, chroma.baseAddress! + offset, Int32(buffer.chromaBytesPerRow), Int32(rowBytes),
                    Int32(buffer.height / 2))
            }
        }
    }

    /// Points this frame, which must hold no buffers (fresh or `av_frame_unref`ed), at
    /// `buffer`'s planes without copying them: each plane becomes a read-only `AVBufferRef`
    /// (`av_buffer_create` with `AV_BUFFER_FLAG_READONLY`) whose free callback releases
    /// the planes; once the encoder and this frame have let go of all of them, the planes
    /// go back to `pool` (the `CVPixelBufferPool` way: a buffer returns to its pool when
    /// its last user releases it). Sets format, width, height, `data`, `linesize`, `buf`.
    ///
    /// The planes are ``PixelBuffer``'s arrays, held (never mutated) by the owner object the
    /// buffers retain, so their storage stays where it is while FFmpeg reads it.
    /// Precondition: `buffer.hasPlanePadding` (FFmpeg may read past a row's end, as into its own buffers).
    /// - Throws: ``FFmpegError`` (ENOMEM from `av_buffer_create`); the frame is unreferenced then.
    func reference(_ buffer: PixelBuffer, recyclingInto pool: PixelBufferPool?) throws(FFmpegError) {
        precondition(buffer.hasPlanePadding, "referenced planes need FFmpeg's padding")
        let owner = ReferencedPlanes(buffer, pool: pool)
        let f = pointer
        f.pointee.format = buffer.pixelFormat.avPixelFormat.rawValue
        f.pointee.width = Int32(buffer.width)
        f.pointee.height = Int32(buffer.height)
        let free: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void = { opaque, _ in
            Unmanaged<ReferencedPlanes>.fromOpaque(opaque!).release()
        }
        func wrap(_ plane: [UInt8]) -> UnsafeMutablePointer<AVBufferRef>? {
            let base = plane.withUnsafeBufferPointer { UnsafeMutablePointer(mutating: $0.baseAddress!) }
            let opaque = Unmanaged.passRetained(owner).toOpaque()
            guard let ref = av_buffer_create(base, plane.count, free, opaque, Int32(AV_BUFFER_FLAG_READONLY)) else {
                Unmanaged<ReferencedPlanes>.fromOpaque(opaque).release()
                return nil
            }
            return ref
        }
        guard let luma = wrap(owner.buffer.lumaPlane), let chroma = wrap(owner.buffer.chromaPlane) else {
            av_frame_unref(f)
            throw FFmpegError(call: "av_buffer_create", code: segrec_averror_enomem())
        }
        let lumaBase = luma.pointee.data!
        let chromaBase = chroma.pointee.data!
        f.pointee.buf.0 = luma
        f.pointee.buf.1 = chroma
        f.pointee.data.0 = lumaBase
        f.pointee.linesize.0 = Int32(buffer.lumaBytesPerRow)
        f.pointee.data.1 = chromaBase
        f.pointee.linesize.1 = Int32(buffer.chromaBytesPerRow)
        if buffer.pixelFormat == .yuv420p {
            // Cr lies in the same AVBuffer as Cb (one array): buf[1] covers both planes.
            f.pointee.data.2 = chromaBase + buffer.chromaPlaneOffsets[1]
            f.pointee.linesize.2 = Int32(buffer.chromaBytesPerRow)
        }
    }
}

extension ScaleContext {
    /// Converts a ``PixelBuffer`` (in the context's source format and size) into `frame`
    /// (allocated in the context's destination format, same size) with `sws_scale`, reading
    /// planes that carry FFmpeg's padding (``PixelBuffer/withPaddedPlanes(_:)``).
    func convert(_ buffer: PixelBuffer, into frame: Frame) throws(FFmpegError) {
        try buffer.withPaddedPlanes { (planes, strides) throws(FFmpegError) in try convert(sourcePlanes: planes, sourceStrides: strides, into: frame) }
    }
}
