import Foundation
import SegRecMedia

/// Turns a finished recording folder into something one player plays from start to end:
/// an HLS playlist of fMP4 segments (``exportHLS(from:to:wallClock:mediaSegmentDuration:discontinuities:force:)``) or an
/// ffconcat list of the MP4 files themselves (``exportConcat(from:to:force:)``). Neither
/// re-encodes a picture: HLS segments are remuxed with libavformat (`FragmentedRemuxer`).
/// The HLS sound is the one thing encoded: the segments' AAC tracks joined into one AAC
/// stream, so that no discontinuity repeats the encoder's priming.
package enum RecordingExporter {
    /// What ``exportHLS(from:to:wallClock:mediaSegmentDuration:discontinuities:force:)`` wrote.
    package struct HLSResult: Sendable, Equatable {
        /// The playlist file.
        package let playlist: URL
        /// The playlist as written.
        package let text: String
        /// Media segments written (playlist entries).
        package let segments: Int
        /// Recorded files exported (one initialization section each).
        package let files: Int
        /// Frames (packets) copied into media segments, over all segments.
        package let frames: Int
        /// Bytes written (initialization sections and media segments).
        package let bytes: Int64
        /// `EXT-X-DISCONTINUITY` tags written: files − 1 when asked for, else 0.
        package let discontinuities: Int
        /// Sample frames of sound carried (one continuous AAC stream over every media
        /// segment), 0 for a recording without sound.
        package let audioSamples: Int64
        /// What a user should know (a rotation change, a media segment longer than asked).
        package let warnings: [String]
        /// Files the replaced playlist named that this export did not write, removed (`force`).
        package var staleFilesRemoved = 0
    }

    /// Where the playlist and its files go for `--hls OUT`: a path ending in `.m3u8` names
    /// the playlist (its files go beside it, prefixed with its name: `rec-segment-000-0.m4s`,
    /// every character but ASCII letters, digits, `_`, `-` and `.` made `_`, so that no URI
    /// needs percent-encoding: `my list.m3u8` gives `my_list-segment-000-0.m4s`);
    /// any other path is a folder that gets `index.m3u8` and unprefixed files.
    package struct HLSLayout: Sendable, Equatable {
        /// The folder receiving every file.
        package let folder: URL
        /// The playlist's file name.
        package let playlistName: String
        /// Prefix of the initialization sections' and media segments' names.
        package let prefix: String

        /// The layout for `output`.
        package init(output: URL) {
            if output.pathExtension.lowercased() == "m3u8" {
                folder = output.deletingLastPathComponent()
                playlistName = output.lastPathComponent
                // Only characters no URI encodes: FFmpeg's hls demuxer opens a relative URI
                // as it is written, without percent-decoding it.
                prefix = RecordingExporter.safeConcatName(output.deletingPathExtension().lastPathComponent) + "-"
            } else {
                folder = output
                playlistName = "index.m3u8"
                prefix = ""
            }
        }

        /// `segment-000-init.mp4` for `segment-000.mp4`.
        package func initName(for segment: SegmentRecord) -> String { prefix + (segment.file as NSString).deletingPathExtension + "-init.mp4" }

        /// `segment-000-1.m4s` for media segment 1 of `segment-000.mp4` (parts from 0).
        package func mediaName(for segment: SegmentRecord, part: Int) -> String { prefix + (segment.file as NSString).deletingPathExtension + "-\(part).m4s" }
    }

    /// The default longest media segment of the HLS export: 4 s (Apple's authoring spec
    /// recommends 6 s targets; 4 s holds two of the recorder's default 2 s keyframe intervals at 30 fps).
    package static let defaultMediaSegmentDuration = MediaTime(value: 4, timescale: 1)

    /// Writes an HLS VOD playlist (version 7) of fMP4 segments for the recording in
    /// `directory`: per segment file an initialization section and media segments of at most
    /// `mediaSegmentDuration` each, remuxed (not re-encoded) by `FragmentedRemuxer` and cut
    /// only before keyframes (`FragmentedRemuxer.planMediaSegments`: each media segment
    /// decodes on its own; where one keyframe interval alone is longer than the target, its
    /// media segment is that long and ``HLSResult/warnings`` says so). The first media
    /// segment of every file after the first starts with its own `EXT-X-MAP`, after
    /// `EXT-X-DISCONTINUITY` when `discontinuities` is set. `EXTINF` is each media segment's presentation span, exact to the
    /// nanosecond: from its earliest pts to the next one's (the file's last to its
    /// `sessionEnd − sessionStart`), whatever the decode order (B-frames, HEVC), so a file's
    /// `EXTINF`s add up to its exact duration. Timestamps continue across files: each file's
    /// pts are shifted by the sum of the exact durations before it, so the media timeline is
    /// the playlist's; decode times increase across files (see `FragmentedRemuxer`). Every
    /// file gets one common time base (`FragmentedRemuxer.commonTimeBase(of:)`: the least
    /// common multiple of the files' timescales, ≥ 90 kHz, so every timestamp stays exact;
    /// `1/90000` with rounding when that does not fit in 32 bits), because FFmpeg's `hls`
    /// demuxer reads every file's ticks in the first initialization section's time base.
    /// Each initialization section keeps its file's display matrix; a rotation that changes
    /// between files is named in ``HLSResult/warnings`` (FFmpeg's `hls` demuxer keeps the
    /// first file's matrix).
    ///
    /// Sound: when every segment has an `audio` record, the segments' tracks are decoded,
    /// cut to their `sampleCount`s and joined (`ExportAudio`), encoded once into one AAC-LC
    /// stream (`EncodedAudioTrack`: its priming packet left out, sample `m` at playlist
    /// time `m / rate`, i.e. session time `first sessionStart + m / rate`), and each media
    /// segment carries the AAC frames that start in its span (a second track in every
    /// initialization section). One encoding for the whole playlist, so no discontinuity
    /// adds or loses a sample; the first 1024 samples decode attenuated (no priming).
    ///
    /// - Parameters:
    ///   - directory: the recording folder (its `manifest.json` and segment files).
    ///   - output: a folder (playlist `index.m3u8`) or a `.m3u8` path (see `HLSLayout`).
    ///   - wallClock: the wall-clock time of the first segment's first frame; each file's
    ///     first media segment then gets `EXT-X-PROGRAM-DATE-TIME` = `wallClock +
    ///     (sessionStart − first sessionStart)`, in UTC with milliseconds.
    ///   - mediaSegmentDuration: the longest media segment wanted (positive).
    ///   - discontinuities: write `EXT-X-DISCONTINUITY` before each file after the first
    ///     (RFC 8216's advice for a change of encoding parameters; what Chromium's native HLS
    ///     needs to switch files). Without it the files' timestamps and tracks continue as
    ///     one sequence, which VLC 3 plays through: at a discontinuity it restarts its demuxer
    ///     without any initialization section (it keeps only the playlist's first `EXT-X-MAP`)
    ///     and stops (Docs/output.md).
    ///   - force: replace files of the same names; without it an existing one is an error.
    ///     With it, the files the replaced playlist named that this export does not write
    ///     (an earlier export of a longer recording) are removed once the new playlist is
    ///     in place (``HLSResult/staleFilesRemoved``).
    ///
    /// Every initialization section and media segment is written as `NAME.partial`
    /// (``StagedExportFiles``) and renamed once all are whole, then the playlist is written
    /// (through a temporary file): an export interrupted or killed leaves only `.partial`
    /// files, which the next export to the same place removes first, with or without
    /// `force`; a replaced export stays whole until the new one is complete.
    /// - Throws: what `ExportSource/init(directory:)` throws;
    ///   ``RecordingError/outputExists(path:)`` (exit 73);
    ///   ``RecordingError/cannotCreateOutput(path:detail:)`` for a folder at a file's name;
    ///   ``RecordingError/io(path:underlying:)`` when a rename fails; ``FFmpegError`` or
    ///   ``SegmentWriterError`` when remuxing fails (the `.partial` files written so far are
    ///   removed, the recording is never touched).
    package static func exportHLS(
        from directory: URL, to output: URL, wallClock: Date? = nil, mediaSegmentDuration: MediaTime = defaultMediaSegmentDuration,
        discontinuities: Bool = false, force: Bool = false
    ) throws -> HLSResult {
        let source = try ExportSource(directory: directory)
        let layout = HLSLayout(output: output)
        let segments = source.manifest.segments
        let playlistPath = layout.folder.appendingPathComponent(layout.playlistName).path
        let plans = try segments.map {
            try FragmentedRemuxer.planMediaSegments(path: source.path(of: $0), target: mediaSegmentDuration, end: ExportSource.duration(of: $0))
        }
        let files = hlsFilePaths(layout, segments: segments, plans: plans)
        // An export stopped while it replaced an earlier one left its files to be replaced.
        let replaces = force || StagedExportFiles.wasInterruptedReplacing(playlistPath)
        let output = try ExportOutput(folder: layout.folder, paths: [playlistPath] + files, force: replaces, protecting: source, removesExisting: false)
        // Written as NAME.partial, renamed once all are whole, then the playlist; an
        // earlier playlist (--force) names the files to remove once the new one is in place.
        let staged = try StagedExportFiles(finals: files, source: source)
        let previous = StagedExportFiles.previousNames(of: playlistPath, force: force, parse: HLSPlaylist.fileNames(in:))
        // Offsets on the playlist timeline: the exact durations before each file.
        let starts = playlistOffsets(segments)

        // One time base for every file: FFmpeg's hls demuxer reads all of them in the first
        // initialization section's time base.
        let timeBase = try FragmentedRemuxer.commonTimeBase(of: segments.map { try FragmentedRemuxer.timeBase(path: source.path(of: $0)) }).timeBase
        // The sound: one AAC stream for the whole playlist, each file taking the packets
        // that start in its own samples.
        let audioSettings = ExportAudio.settings(of: segments)
        let audio = try audioSettings.map { settings in
            try EncodedAudioTrack(settings: settings, pieces: segments.count) { try ExportAudio.pcm(of: segments[$0], in: source, settings: settings) }
        }
        let sampleStarts = ExportAudio.sampleStarts(of: segments)
        var entries: [HLSPlaylist.Entry] = []
        var frames = 0
        var bytes: Int64 = 0
        let first = segments[0].sessionStart
        var decodeFloor: MediaTime?
        var warnings = rotationChangeWarnings(segments, codecs: try segments.map { try FragmentedRemuxer.codecName(path: source.path(of: $0)) }, export: "HLS")
        do {
            for (index, (segment, plan)) in zip(segments, plans).enumerated() {
                let initName = layout.initName(for: segment)
                let mediaNames = plan.starts.indices.map { layout.mediaName(for: segment, part: $0) }
                let initPath = layout.folder.appendingPathComponent(initName).path
                let mediaPaths = mediaNames.map { layout.folder.appendingPathComponent($0).path }
                let duration = ExportSource.duration(of: segment)
                let sound = audio.map { soundSlice(of: $0, file: index, of: segments.count, sampleStarts: sampleStarts) }
                let result = try FragmentedRemuxer.remux(
                    input: source.path(of: segment), initOutput: StagedExportFiles.staged(initPath), mediaOutput: StagedExportFiles.staged(mediaPaths[0]),
                    offset: starts[index], end: duration, decodeFloor: decodeFloor, timeBase: timeBase, cuts: plan.cuts,
                    moreMediaOutputs: mediaPaths.dropFirst().map(StagedExportFiles.staged), audio: sound)
                decodeFloor = result.lastDecodeTime
                guard result.packets == segment.frameCount else {
                    throw RecordingError.badInput(
                        path: source.path(of: segment), field: "frameCount",
                        detail: "the manifest says \(segment.frameCount) frames, the file holds \(result.packets)")
                }
                frames += result.packets
                bytes += result.initBytes + result.mediaBytes
                let spans = try mediaSegmentSpans(plan, duration: duration)
                warnings += longMediaSegmentWarnings(segment, spans: spans, target: mediaSegmentDuration)
                let date = wallClock.map { programDateTime($0, after: segment.sessionStart - first) }
                entries += spans.enumerated().map { part, span in
                    HLSPlaylist.Entry(
                        initURI: part == 0 ? initName : nil, mediaURI: mediaNames[part], duration: span, programDateTime: part == 0 ? date : nil,
                        title: title(of: segment))
                }
            }
            let playlist = HLSPlaylist(entries: entries, discontinuities: discontinuities)
            let text = playlist.render()
            let removed = try staged.publish(text, at: playlistPath, replacing: previous, in: layout.folder, source: source)
            return HLSResult(
                playlist: URL(fileURLWithPath: playlistPath), text: text, segments: entries.count, files: segments.count, frames: frames, bytes: bytes,
                discontinuities: discontinuities ? segments.count - 1 : 0, audioSamples: audio?.sampleCount ?? 0, warnings: warnings, staleFilesRemoved: removed
            )
        } catch {
            staged.discard()
            output.removeCreatedFolderIfEmpty()
            throw error
        }
    }

    /// File `index`'s part of the playlist's one AAC stream: the packets that start in its
    /// samples, ending at its own end (the packet that runs on into the next file declares
    /// only its part here).
    private static func soundSlice(of track: EncodedAudioTrack, file index: Int, of count: Int, sampleStarts: [Int64]) -> AudioPacketSlice {
        AudioPacketSlice(
            track: track, range: track.packets(from: sampleStarts[index], to: index + 1 == count ? Int64.max : sampleStarts[index + 1]),
            end: sampleStarts[index + 1])
    }

    /// The files an HLS export writes besides its playlist: each recording file's
    /// initialization section, then its media segments, in playlist order.
    private static func hlsFilePaths(_ layout: HLSLayout, segments: [SegmentRecord], plans: [FragmentedRemuxer.MediaSegmentPlan]) -> [String] {
        var paths: [String] = []
        for (segment, plan) in zip(segments, plans) {
            paths.append(layout.folder.appendingPathComponent(layout.initName(for: segment)).path)
            for part in plan.starts.indices { paths.append(layout.folder.appendingPathComponent(layout.mediaName(for: segment, part: part)).path) }
        }
        return paths
    }

    /// Each file's offset on the playlist timeline: the exact durations of the files before it.
    private static func playlistOffsets(_ segments: [SegmentRecord]) -> [MediaTime] {
        var starts: [MediaTime] = []
        var cumulative = MediaTime.zero
        for segment in segments {
            starts.append(cumulative)
            cumulative = cumulative + ExportSource.duration(of: segment)
        }
        return starts
    }

    /// A warning for each of `segment`'s media segments longer than `target`: its keyframes are that far apart.
    private static func longMediaSegmentWarnings(_ segment: SegmentRecord, spans: [MediaTime], target: MediaTime) -> [String] {
        spans.enumerated().filter { $0.element > target }.map { part, span in
            "\(segment.file): media segment \(part) lasts \(DecimalSeconds.text(span, digits: 3)) s, longer than \(DecimalSeconds.text(target, digits: 3)) s: its keyframes are that far apart (record with a smaller --keyframe-interval)"
        }
    }

    /// Each media segment's `EXTINF` in nanoseconds: from its earliest pts to the next
    /// one's, the last to the file's `duration`; boundaries rounded once to the nanosecond
    /// (half away from zero), so the spans add up to `duration` exactly.
    static func mediaSegmentSpans(_ plan: FragmentedRemuxer.MediaSegmentPlan, duration: MediaTime) throws -> [MediaTime] {
        let nanosecond: Int32 = 1_000_000_000
        let end = try duration.converted(toTimescale: nanosecond, rounding: .roundHalfAwayFromZero).value
        let origin = plan.starts.first ?? 0
        var bounds: [Int64] = []
        for start in plan.starts {
            let ticks = Int128(start - origin) * Int128(plan.timeBase.num)
            let value = ExactArithmetic.multiplyDivide(ticks, Int128(nanosecond), Int128(plan.timeBase.den), rounding: .default) ?? 0
            bounds.append(Int64(value))
        }
        bounds.append(end)
        return (0..<plan.starts.count).map { MediaTime(value: bounds[$0 + 1] - bounds[$0], timescale: nanosecond) }
    }

    /// One warning per rotation change between consecutive files (the manifest's
    /// `rotationDegrees`, absent = 0) of a recording not all H.264 (`codecs`, libavcodec's
    /// names): players that keep one demuxer (FFmpeg's `hls` and `concat` demuxers, a `-c
    /// copy` join) keep the first file's display matrix (or none), and only H.264 files get
    /// theirs in band (a display orientation SEI in every access unit).
    static func rotationChangeWarnings(_ segments: [SegmentRecord], codecs: [String], export: String) -> [String] {
        guard codecs.contains(where: { $0 != "h264" }) else { return [] }
        var warnings: [String] = []
        for (previous, next) in zip(segments, segments.dropFirst()) where (previous.rotationDegrees ?? 0) != (next.rotationDegrees ?? 0) {
            warnings.append(
                "\(next.file): rotation changes from \(previous.rotationDegrees ?? 0)° to \(next.rotationDegrees ?? 0)° (clockwise); its file keeps its own display matrix (an HEVC file cannot carry it in band), but players that read the \(export) export with one demuxer (ffmpeg, ffplay, mpv) keep the first file's and show it turned: export --mp4 gives one upright file"
            )
        }
        return warnings
    }

    /// `path` absolute, with `.`/`..` and its folder's symbolic links resolved (the file
    /// itself may not exist yet): two outputs are the same file when these are equal.
    package static func resolvedOutputPath(_ path: String) -> String { ExportOutput.resolved(URL(fileURLWithPath: path).path) }

    /// The relative path from folder `base` to folder `target` (`""` when equal, `..` steps
    /// where needed), both made absolute and standardized first; symbolic links resolved.
    package static func relativePath(from base: URL, to target: URL) -> String {
        let from = base.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let to = target.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        return (ups + to[common...]).joined(separator: "/")
    }

    /// `720x1280 9x16 front` for the `EXTINF` title.
    static func title(of segment: SegmentRecord) -> String {
        ["\(segment.width)x\(segment.height)", segment.aspectRatio].compactMap { $0 }.joined(separator: " ")
    }

    /// `wallClock + offset` as ISO 8601 in UTC with milliseconds, e.g.
    /// `2026-11-30T08:00:00.200Z`.
    static func programDateTime(_ wallClock: Date, after offset: MediaTime) -> String {
        let milliseconds = ExactArithmetic.multiplyDivide(Int128(offset.value), 1000, Int128(offset.timescale), rounding: .default) ?? 0
        return UTCTimestamp.string(wallClock.addingTimeInterval(Double(Int64(milliseconds)) / 1000), fractionDigits: 3)
    }

    /// Parses `--wall-clock`: ISO 8601 date-time with a time zone (`Z` or `±hh:mm`),
    /// with or without fractional seconds. Returns nil when it is not one, or names a day
    /// or time that does not exist (`2026-02-30`, `24:00:00`: the formatter alone rolls
    /// them over into the next month or day).
    package static func parseWallClock(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var date = formatter.date(from: text)
        if date == nil {
            formatter.formatOptions = [.withInternetDateTime]
            date = formatter.date(from: text)
        }
        guard let date, isExactDateTime(text, date) else { return nil }
        return date
    }

    /// Whether `date`, read back in `text`'s own offset, has the year, month, day, hour,
    /// minute and second `text` writes.
    private static func isExactDateTime(_ text: String, _ date: Date) -> Bool {
        let digits = text.unicodeScalars.map { $0.properties.numericType != nil ? Int(String($0)) : nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= digits.count else { return nil }
            return digits[from..<from + count].reduce(Optional(0)) { total, digit in total.flatMap { t in digit.map { t * 10 + $0 } } }
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2), let minute = number(14, 2),
            let second = number(17, 2)
        else { return false }
        var offset = 0
        if !text.hasSuffix("Z") && !text.hasSuffix("z") {
            guard let hours = number(text.count - 5, 2), let minutes = number(text.count - 2, 2) else { return false }
            offset = (hours * 60 + minutes) * 60 * (Array(text)[text.count - 6] == "-" ? -1 : 1)
        }
        guard let zone = TimeZone(secondsFromGMT: offset) else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (c.year, c.month, c.day, c.hour, c.minute, c.second) == (year, month, day, hour, minute, second)
    }
}
