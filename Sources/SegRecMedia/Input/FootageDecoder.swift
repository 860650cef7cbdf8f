// FootageDecoder: what a footage source hands a recording (pictures in presentation order and the stream's facts), whoever reads it; FootageInput chooses the reader.
import SegRecTime

/// A footage input read picture by picture: ``VideoFileDecoder`` (anything libavformat
/// demuxes) or ``RawFrameReader`` (YUV4MPEG2 and headerless raw video, read straight into
/// pooled pictures). Both hand out the same pictures, timestamps and facts for the same
/// input; see ``VideoFileDecoder`` for what each member means. Not thread-safe: one consumer.
package protocol FootageDecoder: AnyObject {
    /// The path as given (`-` for standard input).
    var path: String { get }
    /// Where the planes of its pictures come from.
    var pixelBufferPool: PixelBufferPool { get }
    /// The stream's time base: seconds per tick = num / den.
    var timeBase: (num: Int32, den: Int32) { get }
    /// The stream's frame rate, if known.
    var frameRate: FrameRate? { get }
    /// The capture rate the recording encodes at (``VideoFileDecoder/nominalFrameRate``).
    var nominalFrameRate: FrameRate? { get }
    /// Counter-clockwise display rotation, or nil.
    var rotationDegrees: Int? { get }
    /// The stream's coded size.
    var streamDimensions: VideoDimensions { get }
    /// Where the stream's presentation ends (time-base ticks), when the input says.
    var presentationEnd: Int64? { get }
    /// The stream's field order.
    var fieldOrder: VideoFieldOrder { get }
    /// What the stream's samples mean.
    var streamPictureDescription: PictureDescription { get }
    /// Whether the container's timestamps may jump.
    var allowsTimestampDiscontinuities: Bool { get }
    /// What was noticed on opening, and later notes while no ``noteHandler`` is set.
    var notes: [String] { get }
    /// Called with each adjustment worth a manifest warning.
    var warningHandler: ((String) -> Void)? { get set }
    /// Called with each remark worth a manifest note after opening.
    var noteHandler: ((String) -> Void)? { get set }
    /// Packets flagged corrupt or rejected so far.
    var corruptPackets: Int { get }
    /// Pictures lost to damage so far.
    var droppedPictures: Int { get }
    /// Whether reading ended because a stop was requested.
    var wasInterrupted: Bool { get }
    /// The decoder of the input's first audio stream, when one is decoded.
    var audio: FootageAudioDecoder? { get }
    /// Audio streams in the input.
    var audioStreamCount: Int { get }
    /// Reads nothing further; ``nextPicture()`` then ends.
    func stopReading()
    /// The next picture in presentation order, or nil at the end.
    /// - Throws: ``MediaInputError`` after the last picture read, when the input could not be
    ///   read to its end.
    func nextPicture() throws(MediaInputError) -> DecodedPicture?
}

extension VideoFileDecoder: FootageDecoder {}

/// Opens footage with the reader that reads it.
package enum FootageInput {
    /// A raw frame stream (YUV4MPEG2: standard input, or a file or named pipe that starts
    /// with `YUV4MPEG2`; raw video: `.yuv` or a `--video-size`) in a format and at a rate
    /// ``RawFrameReader`` reads is read by it; anything else (other containers, also in a
    /// named pipe, whose first bytes then go on to libavformat with the same descriptor;
    /// network URLs, palette or bitstream pixel formats, frame rates libavformat rounds) by
    /// ``VideoFileDecoder``; a network URL with a ``VideoSourceOptions/reconnectFor`` window
    /// through a ``LiveReconnectingDecoder`` over it. The parameters are
    /// ``VideoFileDecoder``'s.
    /// - Throws: ``MediaInputError``, as ``VideoFileDecoder`` does for the same input (the
    ///   header's errors name the file and the field).
    package static func open(
        path: String, options: VideoSourceOptions = VideoSourceOptions(), pixelBufferPool: PixelBufferPool = PixelBufferPool(),
        stopRequest: RecordingStopRequest? = nil, keepsYUV420P: Bool = false, decodesAudio: Bool = false
    ) throws(MediaInputError) -> any FootageDecoder {
        switch try RawFrameReader.opening(path: path, options: options, pixelBufferPool: pixelBufferPool, stopRequest: stopRequest, keepsYUV420P: keepsYUV420P)
        {
        case .reader(let reader): return reader
        case .libavformat(let handedOver):
            let decoder = try VideoFileDecoder(
                path: path, options: options, pixelBufferPool: pixelBufferPool, stopRequest: stopRequest, keepsYUV420P: keepsYUV420P,
                decodesAudio: decodesAudio, adopting: handedOver)
            guard VideoSourceOptions.networkScheme(of: path) != nil, options.reconnectFor > .zero else { return decoder }
            let soundDecoded = decoder.audio != nil
            return LiveReconnectingDecoder(first: decoder, stopRequest: stopRequest) { next throws(MediaInputError) in
                try VideoFileDecoder(
                    path: path, options: next, pixelBufferPool: pixelBufferPool, stopRequest: stopRequest, keepsYUV420P: keepsYUV420P,
                    decodesAudio: soundDecoded)
            }
        }
    }
}
