// RawFrameReader: YUV4MPEG2 and headerless raw video read with read(2) straight into pictures from the recording's pool; opening is in RawFrameReader+Opening, reading in +Reading.
import CFFmpeg
import SegRecTime

/// Reads a raw frame stream — YUV4MPEG2 (``Y4MHeader``) or headerless raw video
/// (`--video-size`, `--pixel-format`, `--framerate`) — from a file, a named pipe or
/// standard input, without libavformat or libavcodec: each picture's planes are read with
/// `read(2)` (``RawByteInput``) directly into planes from the recording's
/// ``PixelBufferPool`` (NV12, and yuv420p when the consumer keeps yuv420p: no packet, no
/// copy), or, for a format the encoder cannot take, into one frame reused for the whole
/// recording and converted from there by ``PictureConverter`` (libswscale), as decoded
/// pictures are.
///
/// It hands out what ``VideoFileDecoder`` hands out for the same input: the same
/// timestamps, stream facts (``RawStreamFormat``), notes, pixels (bit for bit), and the same
/// end: a stream that stops inside a frame is truncated (the error names the bytes left
/// over, after every whole frame), a damaged `FRAME` line is skipped as libavformat skips
/// it (up to 8 in a row, counted as damage), and a stop request ends a read that waits on a
/// pipe. Not thread-safe: one consumer pulls pictures with ``nextPicture()``.
package final class RawFrameReader: FootageDecoder {
    package let path: String
    package let options: VideoSourceOptions
    package let pixelBufferPool: PixelBufferPool
    package let timeBase: (num: Int32, den: Int32)
    package let frameRate: FrameRate?
    package var nominalFrameRate: FrameRate? { frameRate }
    package var rotationDegrees: Int? { nil }
    package let streamDimensions: VideoDimensions
    /// The end a regular file's size gives (``RawStreamFormat/presentationEnd(fileSize:)``),
    /// once a picture has been read: libavformat states none for a stream whose first
    /// packet it could not read.
    package var presentationEnd: Int64? { picturesRead > 0 ? fileEnd : nil }
    package let fieldOrder: VideoFieldOrder
    package let streamPictureDescription: PictureDescription
    package var allowsTimestampDiscontinuities: Bool { false }
    package internal(set) var notes: [String] = []
    package var warningHandler: ((String) -> Void)?
    package var noteHandler: ((String) -> Void)?
    package var corruptPackets: Int { damage.corruptPackets }
    package var droppedPictures: Int { damage.droppedPictures }
    package internal(set) var wasInterrupted = false
    package var audio: FootageAudioDecoder? { nil }
    package var audioStreamCount: Int { 0 }
    /// Pictures handed out so far.
    package internal(set) var picturesRead: Int64 = 0

    let format: RawStreamFormat
    let fileEnd: Int64?
    let input: RawByteInput
    let stopRequest: RecordingStopRequest?
    /// The layout pictures are read into as they are, or nil: read into ``scratch`` and converted.
    let directLayout: PixelBuffer.PixelFormat?
    var converter: PictureConverter!
    /// The frame pictures in other formats are read into (its planes in ``scratchBuffer``),
    /// and the description every picture carries (its colour fields and pixel aspect).
    let scratch: Frame
    var scratchBuffer: UnsafeMutablePointer<UInt8>?
    var damage = InputDamage()
    var readingStopped = false
    var finished = false
    var pendingError: MediaInputError?
    /// Where the last whole frame's data ended in the stream.
    var lastFrameEnd: Int64?
    /// Damaged `FRAME` lines met since the last frame (libavformat's read errors in a row).
    var consecutiveBadLines = 0

    /// `FRAME` lines that may fail in a row before the input counts as unreadable
    /// (``VideoFileDecoder``'s limit on `av_read_frame` errors).
    static let maximumConsecutiveBadLines = VideoFileDecoder.maximumConsecutiveReadErrors

    init(
        path: String, options: VideoSourceOptions, pixelBufferPool: PixelBufferPool, stopRequest: RecordingStopRequest?, keepsYUV420P: Bool,
        input: RawByteInput, format: RawStreamFormat
    ) throws(MediaInputError) {
        FFmpegLog.silence()
        self.path = path
        self.options = options
        self.pixelBufferPool = pixelBufferPool
        self.stopRequest = stopRequest
        self.input = input
        self.format = format
        let layout = format.layout
        timeBase = format.timeBase
        frameRate = format.frameRate
        streamDimensions = VideoDimensions(width: layout.width, height: layout.height)
        fileEnd = format.presentationEnd(fileSize: input.fileSize)
        fieldOrder = VideoFieldOrder(format.fieldOrder)
        directLayout = layout.directLayout(keepsYUV420P: keepsYUV420P)
        do { scratch = try Frame() } catch { throw .badInput(path: path, field: "memory", detail: "\(error)") }
        streamPictureDescription = Self.streamDescription(format)
        describeScratch()
        notes.append(
            "input \(path == VideoSourceOptions.standardInput ? "standard input" : path): rawvideo \(streamDimensions), time base \(timeBase.num)/\(timeBase.den)"
                + (frameRate.map { ", \($0) fps" } ?? "") + (fieldOrder.isInterlaced ? ", interlaced (\(fieldOrder.description))" : ""))
        converter = PictureConverter(
            pixelBufferPool: pixelBufferPool, keepsYUV420P: keepsYUV420P, note: { [unowned self] in self.remark($0) },
            warning: { [unowned self] in self.warningHandler?($0) })
        converter.announce(layout.format)
    }

    deinit { av_free(scratchBuffer) }

    package func stopReading() { readingStopped = true }

    package func nextPicture() throws(MediaInputError) -> DecodedPicture? {
        while true {
            if finished {
                if let warning = damage.finish() { warningHandler?(warning) }
                if let error = pendingError {
                    pendingError = nil
                    throw error
                }
                return nil
            }
            if let picture = try readPicture() { return picture }
        }
    }

    /// The stream's description as ``VideoFileDecoder`` gives it from the codec parameters
    /// (colour range, chroma siting, size, format) and the stream's pixel aspect.
    static func streamDescription(_ format: RawStreamFormat) -> PictureDescription {
        guard let parameters = avcodec_parameters_alloc() else { return .bt709VideoRange }
        defer {
            var freed: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&freed)
        }
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = AV_CODEC_ID_RAWVIDEO
        parameters.pointee.width = Int32(format.layout.width)
        parameters.pointee.height = Int32(format.layout.height)
        parameters.pointee.format = format.layout.format.rawValue
        parameters.pointee.color_range = format.colorRange
        parameters.pointee.chroma_location = format.chromaLocation
        parameters.pointee.field_order = format.fieldOrder
        var description = PictureDescription.of(parameters).0
        let sar = format.sampleAspectRatio
        if sar.num > 0, sar.den > 0 { description.sampleAspectRatio = (sar.num, sar.den) }
        return description
    }

    /// Sets ``scratch``'s picture fields as the `rawvideo` decoder sets its frames' (size,
    /// format, colour range, chroma siting, interlacing) and the pixel aspect
    /// ``VideoFileDecoder`` gives each picture.
    private func describeScratch() {
        let f = scratch.pointer
        f.pointee.width = Int32(format.layout.width)
        f.pointee.height = Int32(format.layout.height)
        f.pointee.format = format.layout.format.rawValue
        f.pointee.color_range = format.colorRange
        f.pointee.chroma_location = format.chromaLocation
        f.pointee.sample_aspect_ratio = format.sampleAspectRatio
        if format.fieldOrder.rawValue > AV_FIELD_PROGRESSIVE.rawValue {
            f.pointee.interlaced_frame = 1
            f.pointee.top_field_first = format.fieldOrder == AV_FIELD_TT || format.fieldOrder == AV_FIELD_TB ? 1 : 0
        }
    }

    func remark(_ text: String) { if let noteHandler { noteHandler(text) } else { notes.append(text) } }

    func report(_ warning: String?) { if let warning { warningHandler?(warning) } }

    func fail(field: String, detail: String) { if pendingError == nil { pendingError = .badInput(path: path, field: field, detail: detail) } }
}
