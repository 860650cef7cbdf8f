import CFFmpeg

/// A decoded picture left in the decoder's own buffers: an `AVFrame` holding a new
/// reference (`av_buffer_ref`) to each of the decoder frame's `buf`s, so that the pixels
/// reach the encoder without a copy (the analog of a `CVPixelBuffer` a decoder's pool
/// vends: whoever holds it keeps the planes alive; the last release gives them back).
///
/// Only NV12 and yuv420p pictures are kept so (the two ``PixelBuffer/PixelFormat``s the
/// encoders take); the picture is cropped to even dimensions by its `width` and `height`
/// alone (an odd last column or row is not part of it). It carries no metadata of the
/// decoder's frame (timestamps, side data, colour fields): those are the recorder's to set.
///
/// Not `Sendable`: it owns an FFmpeg pointer. It crosses from the source to the segment's
/// writer as a `sending` value (region-based isolation, SE-0414/SE-0430): whoever sends
/// it gives it up, so no two isolation domains ever hold it at once.
package final class DecodedFrameBuffer {
    /// The frame: `format`, `width`, `height`, `data`, `linesize` and `buf` set, nothing else.
    let frame: Frame
    /// The layout of the planes.
    package let pixelFormat: PixelBuffer.PixelFormat

    private init(adopting frame: consuming sending UnsafeMutablePointer<AVFrame>, pixelFormat: PixelBuffer.PixelFormat) {
        self.frame = Frame(adopting: frame)
        self.pixelFormat = pixelFormat
    }

    /// `decoded`'s planes referenced, cropped to `dimensions` (even, at most the decoded
    /// size): `segrec_av_frame_ref_picture`, whose result shares no mutable state with
    /// `decoded` (hence `sending`). Nil for a frame this type does not keep (another pixel
    /// format than NV12 or yuv420p, planes not all in refcounted buffers, `extended_buf`)
    /// or when memory runs out: the caller copies the planes then.
    static func referencing(_ decoded: UnsafePointer<AVFrame>, dimensions: VideoDimensions) -> sending DecodedFrameBuffer? {
        let layout: PixelBuffer.PixelFormat
        switch AVPixelFormat(rawValue: decoded.pointee.format) {
        case AV_PIX_FMT_NV12: layout = .nv12
        case AV_PIX_FMT_YUV420P: layout = .yuv420p
        default: return nil
        }
        guard let frame = segrec_av_frame_ref_picture(decoded, Int32(dimensions.width), Int32(dimensions.height)) else { return nil }
        return DecodedFrameBuffer(adopting: frame, pixelFormat: layout)
    }

    /// Another reference to the same planes (no pixel is copied), owned by nobody else: what
    /// is handed on when this one stays where it is stored. Nil when memory runs out.
    package func referenced() -> sending DecodedFrameBuffer? { Self.referencing(frame.pointer, dimensions: dimensions) }

    /// The picture's (even) dimensions.
    package var dimensions: VideoDimensions { VideoDimensions(width: Int(frame.pointer.pointee.width), height: Int(frame.pointer.pointee.height)) }

    /// The picture copied into padded planes from `pool` (packed rows; for yuv420p the Cb
    /// rows, then the Cr rows, in one plane): one `av_image_copy_plane` per plane. For
    /// whoever must change or keep the pixels (a frame-index stamp, a looping clip).
    package func copyToPixelBuffer(from pool: PixelBufferPool) -> PixelBuffer {
        PixelBuffer(copying: frame.pointer.pointee, dimensions: dimensions, layout: pixelFormat, pool: pool)
    }
}

/// The pixels of one picture on its way to the encoder: planes segrec owns (a
/// ``PixelBuffer``: the synthetic sensor's, or a conversion's) or the decoder's own buffers
/// (``DecodedFrameBuffer``: footage already in an encoder's pixel format, passed without a
/// copy). Not `Sendable` (see ``DecodedFrameBuffer``): it moves between isolation domains
/// as a `sending` value.
package enum FramePixels {
    /// Planes segrec owns.
    case pixelBuffer(PixelBuffer)
    /// The decoder's buffers, referenced.
    case decoded(DecodedFrameBuffer)
    /// A picture still encoded as its sender sent it, copied into the file without
    /// decoding (`--copy`; the writer was opened for its stream).
    case encoded(EncodedPicture)

    /// The picture's dimensions (even).
    package var dimensions: VideoDimensions {
        switch self {
        case .pixelBuffer(let buffer): buffer.dimensions
        case .decoded(let frame): frame.dimensions
        case .encoded(let picture): picture.dimensions
        }
    }

    /// The planes' layout.
    package var pixelFormat: PixelBuffer.PixelFormat {
        switch self {
        case .pixelBuffer(let buffer): buffer.pixelFormat
        case .decoded(let frame): frame.pixelFormat
        case .encoded: .yuv420p  // not decoded: no layout of its own; the writer opens no encoder for it
        }
    }

    /// The same pixels as a value that shares nothing with this one (hence `sending`): the
    /// buffer itself (a `Sendable` value), or a new reference to the decoder's planes
    /// (``DecodedFrameBuffer/referenced()``; no pixel is copied). For a picture kept in
    /// storage (a queue, the frame held for its duration) that is handed on.
    package func detached() -> sending FramePixels {
        switch self {
        case .pixelBuffer(let buffer): return .pixelBuffer(buffer)
        case .decoded(let frame):
            if let reference = frame.referenced() { return .decoded(reference) }
            return .pixelBuffer(frame.copyToPixelBuffer(from: PixelBufferPool()))
        case .encoded(let picture):
            if let reference = picture.referenced() { return .encoded(reference) }
            preconditionFailure("out of memory referencing an encoded packet")
        }
    }

    /// The pixels as a ``PixelBuffer``: the buffer itself, or the decoder's planes copied
    /// (`DecodedFrameBuffer/copyToPixelBuffer(from:)`, planes from `pool`).
    package func pixelBuffer(from pool: PixelBufferPool = PixelBufferPool()) -> PixelBuffer {
        switch self {
        case .pixelBuffer(let buffer): buffer
        case .decoded(let frame): frame.copyToPixelBuffer(from: pool)
        case .encoded(let picture):
            // Never decoded (`--copy`): nothing reads its pixels; a mid-grey picture of its size.
            PixelBuffer(width: picture.dimensions.width, height: picture.dimensions.height)
        }
    }
}
