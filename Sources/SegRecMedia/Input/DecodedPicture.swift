/// One picture of a footage source, converted to NV12 (or kept yuv420p, see
/// ``VideoFileDecoder/init(path:options:pixelBufferPool:stopRequest:keepsYUV420P:decodesAudio:)``).
/// Its pixels are the decoder's own buffers when they are already NV12 (or kept yuv420p),
/// else a ``PixelBuffer``'s arrays (``FramePixels``). Not `Sendable`: it crosses tasks as
/// a `sending` value.
package struct DecodedPicture {
    /// The picture in NV12 (or yuv420p) with even dimensions (an odd width or height loses its last
    /// column or row: x264 cannot encode odd sizes in 4:2:0).
    package var pixels: FramePixels
    /// Presentation time in the stream's time base (`AVFrame.pts`); nil when the input
    /// carries none (raw Annex B H.264, for instance).
    package let pts: Int64?
    /// The size libavcodec decoded, before any crop to even.
    package let decodedDimensions: VideoDimensions
    /// Index of the picture in output (presentation) order, from 0.
    package let index: Int64
    /// What its samples mean (colour, pixel aspect ratio), after the conversion.
    package var pictureDescription: PictureDescription = .bt709VideoRange
    /// Whether it is the first picture decoded from a packet that carries a new sequence
    /// header (`AV_PKT_DATA_NEW_EXTRADATA`: an FLV or RTMP stream whose encoder restarted),
    /// where the input's timestamps may start again.
    package var startsNewSequence = false
    /// Set on the first picture of a live source's new connection
    /// (``LiveReconnectingDecoder``): how long it was gone. Its pts is the new connection's
    /// own (in the first connection's time base), a new timeline.
    package var reconnection: LiveReconnection?

    /// The pixels as a ``PixelBuffer`` (``FramePixels/pixelBuffer(from:)``: the decoder's
    /// planes are copied, into fresh planes, on every call).
    package var pixelBuffer: PixelBuffer { pixels.pixelBuffer() }
}
