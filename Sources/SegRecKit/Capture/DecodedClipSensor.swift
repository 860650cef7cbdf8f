/// Real footage as the fake camera's square sensor image (``SensorImageSource``).
///
/// Each decoded picture is turned upright first when asked (``appliedRotation``: the
/// clip's own display rotation, e.g. a phone's portrait recording stored as 1920x1080 with
/// a 90° display matrix becomes a 1080x1920 picture), then centre-cropped to a square,
/// scaled to the active format's side (bicubic, with the media layer's `PictureScaler`), and then cropped to the dimensions
/// of the aspect ratio in effect (the centre of the square), exactly as the synthetic
/// sensor's pictures are. The input's timestamps are ignored: the camera's device clock
/// stamps the frames. Frame `i` of the session shows the next picture of the clip; a clip
/// shorter than the session loops (a file is reopened; standard input, which cannot be
/// reopened, is replayed from memory).
///
/// Not `Sendable`: owned by one ``CaptureSession``.
package final class DecodedClipSensor: SensorImageSource {
    /// Side of the square sensor image (the active format's side).
    package let squareSide: Int
    /// Real footage carries no stamp; the output adds one when asked.
    package var stampsFrameIndex: Bool { false }
    /// The clockwise turn applied to every decoded picture before cropping: the clip's
    /// display rotation (``VideoRotationAngle/init(displayMatrixRotation:)`` of
    /// `VideoFileDecoder/rotationDegrees`) when the sensor was made with
    /// `appliesDisplayRotation`, else `.degrees0`. A rotation that is not a quarter turn is
    /// not applied (``clipRotationDegrees`` tells it).
    package let appliedRotation: VideoRotationAngle
    /// The clip's display rotation as FFmpeg reports it (counter-clockwise degrees, e.g.
    /// −90 for the phone sample), or nil without a display matrix; for notes.
    package let clipRotationDegrees: Int?
    /// Times the clip started over.
    package private(set) var loopCount = 0
    /// Pictures the clip holds, known after its first pass.
    package private(set) var clipLength: Int64?

    /// Largest replay buffer for standard input (bytes of scaled squares).
    package static let maximumReplayBytes = 1 << 30
    /// Where the planes of its crops and scaled squares come from (the decoder that `open`
    /// makes takes its own pool).
    package let pixelBufferPool: PixelBufferPool

    private let open: () throws -> any FootageDecoder
    private let canReopen: Bool
    private var decoder: any FootageDecoder
    private var replay: [PixelBuffer] = []
    private var replayBytes = 0
    private var replayOverflowed = false
    private var replayPosition: Int?
    private var picturesThisPass: Int64 = 0
    private var lastIndex: Int64?
    private var square: PixelBuffer?
    private let scaler: PictureScaler

    /// - Parameters:
    ///   - squareSide: the format's side (even).
    ///   - canReopen: false for standard input.
    ///   - pixelBufferPool: where the planes of crops and scaled squares come from;
    ///     default: a pool of its own; pass the recording's pool, which the muxer's writers
    ///     recycle encoded pictures into.
    ///   - appliesDisplayRotation: turn each picture upright by the clip's display rotation
    ///     before cropping (``appliedRotation``); default false (the pictures as stored).
    ///   - open: opens the input (again, to loop).
    /// - Throws: what `open` throws (``MediaInputError`` for ``VideoFileDecoder``).
    package init(
        squareSide: Int, canReopen: Bool, pixelBufferPool: PixelBufferPool = PixelBufferPool(), appliesDisplayRotation: Bool = false,
        open: @escaping () throws -> any FootageDecoder
    ) throws {
        precondition(squareSide > 0 && squareSide % 2 == 0)
        self.squareSide = squareSide
        self.canReopen = canReopen
        self.pixelBufferPool = pixelBufferPool
        self.scaler = PictureScaler(pixelBufferPool: pixelBufferPool)
        self.open = open
        let decoder = try open()
        self.decoder = decoder
        self.clipRotationDegrees = decoder.rotationDegrees
        self.appliedRotation =
            appliesDisplayRotation ? decoder.rotationDegrees.flatMap(VideoRotationAngle.init(displayMatrixRotation:)) ?? .degrees0 : .degrees0
    }

    /// The decoder of the current pass (for its notes and rotation).
    package var currentDecoder: any FootageDecoder { decoder }

    /// The sensor image of frame `index` (the next picture of the clip for a new index, the
    /// same one again for a repeated index), centre-cropped to `dimensions`.
    /// - Throws: what the decoder throws (``MediaInputError``, e.g. damage after the last
    ///   good picture); ``MediaInputError/badInput(path:field:detail:)`` when the clip holds
    ///   no picture, or when standard input ends and is too large to replay; ``FFmpegError``
    ///   when libswscale cannot scale a picture.
    package func pixelBuffer(forFrame index: Int64, dimensions: VideoDimensions) throws -> PixelBuffer {
        if index != lastIndex || square == nil {
            square = try nextSquare()
            lastIndex = index
        }
        return square!.centreCropped(to: dimensions, pixelBufferPool: pixelBufferPool)
    }

    /// The next picture of the clip as the square sensor image, looping at the end.
    private func nextSquare() throws -> PixelBuffer {
        if let position = replayPosition {
            replayPosition = (position + 1) % replay.count
            if replayPosition == 0 { loopCount += 1 }
            return replay[position]
        }
        if let picture = try decoder.nextPicture() {
            picturesThisPass += 1
            let result = try sensorImage(picture.pixels.pixelBuffer(from: pixelBufferPool))
            if !canReopen { keepForReplay(result) }
            return result
        }
        guard picturesThisPass > 0 else { throw MediaInputError.badInput(path: decoder.path, field: "video stream", detail: "no picture could be decoded") }
        if clipLength == nil { clipLength = picturesThisPass }
        loopCount += 1
        picturesThisPass = 0
        if canReopen {
            decoder = try open()
            return try nextSquare()
        }
        guard !replayOverflowed, !replay.isEmpty else {
            throw MediaInputError.badInput(
                path: decoder.path, field: "standard input",
                detail: "the clip ended after \(clipLength ?? 0) pictures and is too large to replay from memory; pass it as a file to loop it")
        }
        replayPosition = 1 % replay.count
        return replay[0]
    }

    private func keepForReplay(_ square: PixelBuffer) {
        guard !replayOverflowed else { return }
        replayBytes += square.lumaPlane.count + square.chromaPlane.count
        if replayBytes > Self.maximumReplayBytes {
            replayOverflowed = true
            replay = []
        } else {
            replay.append(square)
        }
    }

    /// Centre square of `picture` turned by ``appliedRotation``, scaled to ``squareSide``
    /// (bicubic). Only the square is turned (``PixelBuffer/rotatedRegion(_:x:y:dimensions:pixelBufferPool:)``),
    /// pixel for pixel what turning the whole picture and cropping its centre gives.
    /// - Throws: ``FFmpegError`` when libswscale cannot scale it.
    func sensorImage(_ picture: PixelBuffer) throws(FFmpegError) -> PixelBuffer {
        let side = min(picture.width, picture.height) & ~1
        let square = VideoDimensions(width: side, height: side)
        let crop: PixelBuffer
        if appliedRotation == .degrees0 {
            crop = picture.centreCropped(to: square, pixelBufferPool: pixelBufferPool)
        } else {
            let upright = appliedRotation.rotated(picture.dimensions)
            crop = picture.rotatedRegion(
                appliedRotation, x: ((upright.width - side) / 2) & ~1, y: ((upright.height - side) / 2) & ~1, dimensions: square,
                pixelBufferPool: pixelBufferPool)
        }
        return try scaler.scaled(crop, to: VideoDimensions(width: squareSide, height: squareSide))
    }
}
