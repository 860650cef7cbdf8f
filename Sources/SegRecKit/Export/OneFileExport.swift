import Foundation
import SegRecMedia

/// `segrec export DIR --mp4 FILE [--canvas WxH]`: the whole recording as one MP4 file a
/// person can share or edit, every segment re-encoded onto one canvas.
///
/// Per picture (all through SegRecMedia's Swift faces of FFmpeg): decoded with libavcodec
/// (`VideoFileDecoder`, NV12), turned upright by its file's display matrix
/// (`PixelBuffer/rotated(_:pixelBufferPool:)`, what a player shows), scaled with
/// libswscale to fit the canvas with its displayed shape kept (`CanvasPlacement`, pixel
/// aspect ratio included, never stretched), padded with black bars
/// (`PixelBuffer/placed(onCanvas:x:y:pixelBufferPool:)`), and encoded into one H.264
/// stream by `SegmentWriter` (libx264, the recording's preset and CRF).
///
/// Time: a frame of segment *k* at pts *p* of its file (the file's timeline starts at its
/// first frame) plays at `sessionStart(k) − sessionStart(0) + p`, rounded once to the
/// recording's track timescale (the files' own, so each frame lands within half a tick of
/// its session time); each frame lasts until the next, so across a camera-switch gap the
/// last frame before it stays on screen; the file ends at the last segment's `sessionEnd`.
///
/// Sound: when every segment has an `audio` record, one AAC-LC track (`SegmentWriter`'s,
/// 128 kb/s) re-encoded from the segments' tracks decoded and cut to their `sampleCount`s
/// (`ExportAudio`), one after the other: the recording's continuous sound, sample `m` at
/// file time `m / rate` = session time `first sessionStart + m / rate` (a camera-switch gap
/// keeps its sound), the priming and padding hidden by the edit list; interleaved with the
/// pictures (after each frame, the sound up to its time).
package enum OneFileExport {
    /// What ``export(from:to:canvas:force:)`` wrote.
    package struct Result: Sendable, Equatable {
        /// The MP4 file.
        package let file: URL
        /// The canvas every frame was placed on, in pixels.
        package let canvas: VideoDimensions
        /// Frames encoded (the manifest's total).
        package let frames: Int
        /// Segments read.
        package let segments: Int
        /// Segments whose pictures were turned upright (a display matrix other than 0°).
        package let rotatedSegments: Int
        /// Segments scaled or padded (not exactly the canvas).
        package let placedSegments: Int
        /// The file's duration (last `sessionEnd` − first `sessionStart`, in ticks of
        /// ``timescale``).
        package let duration: MediaTime
        /// Ticks per second of the file's track.
        package let timescale: Int32
        /// Bytes of the file.
        package let bytes: Int64
        /// Sample frames in the audio track (the segments' `sampleCount`s added up), 0 for a
        /// recording without sound.
        package let audioSamples: Int64
    }

    /// What one segment file says before its pictures are read.
    struct SegmentLayout {
        let angle: VideoRotationAngle
        /// The size after the turn, in pixels (coded), and the display proportion.
        let turned: VideoDimensions
        let displayWidth: Int64, displayHeight: Int64
        let timeBase: (num: Int32, den: Int32)
        let frameRate: FrameRate?
        let pictureDescription: PictureDescription
    }

    /// The canvas side limit (both sides), in pixels: libx264's level 6.2 maximum picture
    /// is 139 264 macroblocks, 8192x4320 fits.
    package static let maximumCanvasSide = 8192

    /// What an interrupted export to `file` left (its `.partial` file and its `.tmp`
    /// reservation, and those of `FILE.export`, the name a replacing export finishes under,
    /// with `FILE.export` itself; regular files only) is never a finished output: removed,
    /// so a rerun starts clean, with or without `force`. A symbolic link or folder at those
    /// names is left alone (the writer then refuses to write through it).
    static func removeLeftovers(of file: URL) {
        let replacement = replacementName(of: file)
        var leftovers = [replacement]
        for name in [file, replacement] {
            let files = SegmentFiles(name)
            leftovers += [files.partial, files.temporary]
        }
        for leftover in leftovers where OutputDirectory.isRegularFile(leftover) { unlink(leftover.path) }
    }

    /// `FILE.export`: where an export that replaces an existing `FILE` (`force`) writes and
    /// finishes, renamed over `FILE` only once it is whole, so the earlier file stays whole
    /// until then.
    static func replacementName(of file: URL) -> URL { URL(fileURLWithPath: file.path + ".export") }

    /// Writes the one-file export of the recording in `directory` to `file`.
    /// - Parameters:
    ///   - directory: the recording folder (its `manifest.json` and segment files).
    ///   - file: the MP4 file to write (its folder is created when missing).
    ///   - requested: the frame size of the file, in pixels (even, 2...`maximumCanvasSide`);
    ///     nil: the largest displayed width and the largest displayed height over the
    ///     segments after their rotation, rounded up to even.
    ///   - force: replace an existing `file` (never a file of the recording).
    /// - Throws: what `ExportSource/init(directory:)` throws;
    ///   ``RecordingError/outputExists(path:)``;
    ///   ``RecordingError/badInput(path:field:detail:)`` for a bad canvas (path `canvas`),
    ///   a display matrix that is not a quarter turn (field `rotation`), a frame without a
    ///   timestamp (field `pts`) or a file whose frame count differs from the manifest
    ///   (field `frameCount`); ``MediaInputError``, ``SegmentWriterError``, ``FFmpegError``
    ///   from decoding and encoding. On any throw no output file is left; what an interrupted
    ///   export to `file` left is removed first.
    /// - Parameter progress: called after each frame re-encoded with the frames done and
    ///   the recording's total (the manifest's frame counts), on the caller's thread.
    package static func export(
        from directory: URL, to file: URL, canvas requested: VideoDimensions? = nil, force: Bool = false, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> Result {
        let source = try ExportSource(directory: directory)
        let segments = source.manifest.segments
        if let requested { try check(canvas: requested) }
        let output = try ExportOutput(folder: file.deletingLastPathComponent(), paths: [file.path], force: force, protecting: source, removesExisting: false)
        removeLeftovers(of: file)
        let target = SafeFile.exists(path: file.path) ? replacementName(of: file) : file
        let layouts = try segments.map { try layout(of: source.path(of: $0)) }
        let canvas = requested ?? defaultCanvas(for: layouts)
        try check(canvas: canvas)
        let timescale = trackTimescale(of: layouts.map(\.timeBase))
        let settings = encoderSettings(for: layouts, of: source.manifest)
        let creation = source.manifest.recordedAt.flatMap(RecordingExporter.parseWallClock)

        let (pool, audioSettings, sampleStarts) = (PixelBufferPool(), ExportAudio.settings(of: segments), ExportAudio.sampleStarts(of: segments))
        let writer = try SegmentWriter(
            url: target, dimensions: canvas, timescale: timescale, settings: settings, fragmentInterval: nil, creationTime: creation, audio: audioSettings)
        let (first, total) = (segments[0].sessionStart, segments.reduce(0) { $0 + $1.frameCount })
        var frames = 0
        do {
            let scaler = PictureScaler(pixelBufferPool: pool)
            for (index, (segment, layout)) in zip(segments, layouts).enumerated() {
                let path = source.path(of: segment)
                let placement = CanvasPlacement(displayWidth: layout.displayWidth, displayHeight: layout.displayHeight, canvas: canvas)
                // The segment's start in track ticks, rounded once (half away from zero);
                // its frames' pts are whole track ticks (the timescale is a multiple of
                // every file's), so each frame time is rounded once too.
                let offset = try (segment.sessionStart - first).converted(toTimescale: timescale, rounding: .roundHalfAwayFromZero).value
                let exact = Int64(timescale) % Int64(layout.timeBase.den) == 0
                let ticksPerUnit = Int64(timescale) / Int64(layout.timeBase.den) * Int64(layout.timeBase.num)
                let decoder = try VideoFileDecoder(path: path, pixelBufferPool: pool)
                // This segment's sound, from sample sampleStarts[k] of the recording's.
                let sound = try audioSettings.map { try ExportAudio.pcm(of: segment, in: source, settings: $0) }
                let soundStart = sampleStarts[index]
                var count = 0
                while let picture = try decoder.nextPicture() {
                    guard let pts = picture.pts else {
                        throw RecordingError.badInput(path: path, field: "pts", detail: "frame \(count) has no presentation time")
                    }
                    let ticks =
                        exact
                        ? pts * ticksPerUnit
                        : try MediaTime(value: pts * Int64(layout.timeBase.num), timescale: layout.timeBase.den).converted(
                            toTimescale: timescale, rounding: .roundHalfAwayFromZero
                        ).value
                    let time = MediaTime(value: offset + ticks, timescale: timescale)
                    let upright = picture.pixels.pixelBuffer(from: pool).rotated(layout.angle, pixelBufferPool: pool)
                    let scaled = try scaler.scaled(upright, to: placement.size)
                    let framed = scaled.placed(onCanvas: canvas, x: placement.x, y: placement.y, pixelBufferPool: pool)
                    try writer.append(framed, presentationTime: time, recyclingInto: pool)
                    if let sound, let rate = audioSettings?.sampleRate { try appendSound(sound, startingAt: soundStart, upTo: time, rate: rate, to: writer) }
                    count += 1
                    progress?(frames + count, total)
                }
                if let sound { try appendSound(sound, startingAt: soundStart, upTo: nil, rate: 1, to: writer) }
                guard count == segment.frameCount else {
                    throw RecordingError.badInput(
                        path: path, field: "frameCount", detail: "the manifest says \(segment.frameCount) frames, \(count) decode from the file")
                }
                frames += count
            }
            writer.chapters = chapters(of: source.manifest, origin: first)
            let summary = try writer.finish(endTime: segments[segments.count - 1].sessionEnd - first)
            if target != file, rename(target.path, file.path) != 0 {
                throw RecordingError.io(path: file.path, underlying: "cannot rename \(target.path) to it: \(String(cString: strerror(errno)))")
            }
            return Result(
                file: file, canvas: canvas, frames: frames, layouts: layouts, summary: summary, timescale: timescale, audioSamples: writer.audioSampleCount)
        } catch {
            writer.cancel()
            removeLeftovers(of: file)  // nothing of a failed export stays
            output.removeCreatedFolderIfEmpty()
            throw error
        }
    }

    /// Gives `writer` the samples of `sound` (a segment's, whose first sample is the
    /// recording's sample `start`) not given yet, up to the recording's sample at `time`
    /// (rounded down), or all of them when `time` is nil.
    static func appendSound(_ sound: AudioPCMBuffer, startingAt start: Int64, upTo time: MediaTime?, rate: Int, to writer: SegmentWriter) throws {
        let given = Int(writer.audioSampleCount - start)
        var target = sound.frameCount
        if let time,
            let samples = ExactArithmetic.multiplyDivide(Int128(time.value), Int128(rate), Int128(time.timescale), rounding: .roundTowardNegativeInfinity)
        {
            target = min(target, max(0, Int(clamping: samples - Int128(start))))
        }
        guard target > given else { return }
        try writer.appendAudio(sound.frames(given..<target))
    }

    /// The encoder settings of the one file: H.264 with the recording's preset and CRF, a
    /// keyframe every 2 s of the fastest segment's rate, the first segment's colour
    /// description with square pixels.
    static func encoderSettings(for layouts: [SegmentLayout], of manifest: RecordingManifest) -> EncoderSettings {
        var description = layouts[0].pictureDescription
        description.sampleAspectRatio = (1, 1)
        let fastest = layouts.compactMap(\.frameRate).max { Double($0.numerator) / Double($0.denominator) < Double($1.numerator) / Double($1.denominator) }
        var settings = EncoderSettings(
            codec: .h264, preset: manifest.encoder?.preset ?? "veryfast", crf: manifest.encoder?.crf ?? 23, keyframeInterval: keyframeInterval(for: fastest),
            frameRate: fastest ?? EncoderSettings.defaultFrameRate)
        settings.pictureDescription = description
        return settings
    }

    /// The default canvas: the largest displayed width and the largest displayed height
    /// over `layouts` (after each segment's turn; pixel aspect applied to the width),
    /// each rounded up to even.
    static func defaultCanvas(for layouts: [SegmentLayout]) -> VideoDimensions {
        var width = 2
        var height = 2
        for layout in layouts {
            // Displayed width in pixels of the turned picture's height.
            let shown = (layout.displayWidth * Int64(layout.turned.height) + layout.displayHeight - 1) / layout.displayHeight
            width = max(width, Int(shown))
            height = max(height, layout.turned.height)
        }
        return VideoDimensions(width: (width + 1) & ~1, height: (height + 1) & ~1)
    }

    /// Reads `path`'s stream header: its display matrix as a clockwise quarter turn, its
    /// size after that turn, its displayed proportion (pixel aspect ratio applied), time
    /// base, rate and colour.
    static func layout(of path: String) throws -> SegmentLayout {
        let decoder = try VideoFileDecoder(path: path)
        let rotation = decoder.rotationDegrees ?? 0
        guard let angle = VideoRotationAngle(displayMatrixRotation: rotation) else {
            throw RecordingError.badInput(
                path: path, field: "rotation", detail: "display matrix of \(rotation)° is not a quarter turn; allowed: 0, 90, 180, 270")
        }
        let coded = decoder.streamDimensions
        let description = decoder.streamPictureDescription
        let sar = description.sampleAspectRatio
        let (sarWidth, sarHeight) = sar.width > 0 && sar.height > 0 ? (Int64(sar.width), Int64(sar.height)) : (1, 1)
        // Displayed proportion before the turn, then turned.
        var displayWidth = Int64(coded.width) * sarWidth
        var displayHeight = Int64(coded.height) * sarHeight
        let turned = angle.rotated(coded)
        if turned != coded { swap(&displayWidth, &displayHeight) }
        return SegmentLayout(
            angle: angle, turned: turned, displayWidth: displayWidth, displayHeight: displayHeight, timeBase: decoder.timeBase, frameRate: decoder.frameRate,
            pictureDescription: description)
    }

    /// One track timescale exact for every file: the least common multiple of their time
    /// bases' denominators when every numerator is 1 and it fits in 32 bits, else 90 kHz.
    static func trackTimescale(of timeBases: [(num: Int32, den: Int32)]) -> Int32 {
        var lcm: Int64 = 1
        for base in timeBases {
            guard base.num == 1, base.den > 0 else { return 90000 }
            let den = Int64(base.den)
            lcm = lcm / Int64(ExactArithmetic.gcd(Int128(lcm), Int128(den))) * den
            guard lcm <= Int64(Int32.max) else { return 90000 }
        }
        return Int32(lcm)
    }

    /// Two seconds of frames at `rate` (at least 1), 60 without a rate.
    static func keyframeInterval(for rate: FrameRate?) -> Int {
        guard let rate else { return 60 }
        return max(1, Int((2 * rate.numerator + rate.denominator / 2) / rate.denominator))
    }

    /// - Throws: ``RecordingError/badInput(path:field:detail:)`` (path `canvas`) unless
    ///   both sides are even and within 2...``maximumCanvasSide``.
    static func check(canvas: VideoDimensions) throws(RecordingError) {
        guard (2...maximumCanvasSide).contains(canvas.width), (2...maximumCanvasSide).contains(canvas.height), canvas.width % 2 == 0, canvas.height % 2 == 0
        else {
            throw .badInput(
                path: "canvas", field: "\(canvas)", detail: "allowed: even width and height from 2 to \(maximumCanvasSide) pixels (4:2:0 H.264), e.g. 1920x1080"
            )
        }
    }
}

extension OneFileExport {
    /// The recording's segment starts and session events as chapters of the one file
    /// whose time 0 is `origin` (the first segment's start).
    static func chapters(of manifest: RecordingManifest, origin: MediaTime) -> [MovieChapter] {
        manifest.segments.flatMap {
            SessionEventRecord.chapters(of: manifest.events ?? [], from: $0.sessionStart, to: $0.sessionEnd, startReason: $0.startReason, origin: origin)
        }
    }
}

extension OneFileExport.Result {
    /// The summary of an export of `frames` frames from the segments of `layouts`.
    init(
        file: URL, canvas: VideoDimensions, frames: Int, layouts: [OneFileExport.SegmentLayout], summary: SegmentWriterSummary, timescale: Int32,
        audioSamples: Int64
    ) {
        self.init(
            file: file, canvas: canvas, frames: frames, segments: layouts.count, rotatedSegments: layouts.filter { $0.angle != .degrees0 }.count,
            placedSegments: layouts.filter {
                !CanvasPlacement(displayWidth: $0.displayWidth, displayHeight: $0.displayHeight, canvas: canvas).fillsCanvas || $0.turned != canvas
            }.count, duration: summary.duration, timescale: timescale, bytes: summary.byteCount, audioSamples: audioSamples)
    }
}
