import Foundation
import SegRecMedia
import SegRecTime

/// The ffconcat export: a list every player reads with the concat demuxer's default
/// `safe=1` (FFmpeg's rule: relative paths whose every component starts with a letter,
/// digit, `_` or `-` and holds only those and `.`), so mpv and VLC play it as it is.
extension RecordingExporter {
    /// What ``exportConcat(from:to:force:)`` wrote.
    package struct ConcatResult: Sendable, Equatable {
        /// The list file.
        package let list: URL
        /// The list as written.
        package let text: String
        /// Files listed.
        package let segments: Int
        /// Frames the manifest counts in them.
        package let frames: Int
        /// In-band copies written to `LIST-files/` (non-H.264 files, and turned H.264 files
        /// of a recording whose files turn differently).
        package let copies: Int
        /// Symbolic links written to `LIST-files/` (files whose path from the list is not
        /// safe for the concat demuxer: outside the list's folder, or a name it refuses).
        package let links: Int
        /// What a user should know: a rotation change between files (FFmpeg's concat
        /// demuxer keeps the first file's display matrix).
        package let warnings: [String]
        /// Of the ``copies``, those whose turn is carried in band (turned H.264 files of a
        /// recording whose files turn differently).
        package var turnedCopies = 0
        /// Files in `LIST-files/` the replaced list named that this export did not write,
        /// removed (`force`).
        package var staleFilesRemoved = 0
    }

    /// Writes an ffconcat list for the recording in `directory` at `list`: `ffconcat version
    /// 1.0`, then per segment `file '…'` (relative to the list's folder) and `duration` (the
    /// exact `sessionEnd − sessionStart`), so `ffmpeg -f concat -i LIST`, mpv and VLC play
    /// every frame in order without `-safe 0`.
    ///
    /// Every path in the list is safe for the concat demuxer (``isSafeConcatPath(_:)``): a
    /// file whose path from the list's folder is not (a list outside the recording folder
    /// needs `../`; a folder name with a space or a line break) is listed through a relative
    /// symbolic link in the folder `LIST-files/` beside the list (its name made safe). H.264
    /// files are listed as they are (FFmpeg's concat demuxer inserts `h264_mp4toannexb`
    /// itself, so each file's SPS/PPS reach the decoder). For any other codec (HEVC) the
    /// demuxer hands the decoder only the first file's parameter sets, so each file is
    /// remuxed (not re-encoded) by `FragmentedRemuxer` into a copy with in-band parameter
    /// sets (`hev1`) in `LIST-files/`, and the list names those. The concat demuxer also
    /// keeps the first file's display matrix: when the files turn differently, each turned
    /// H.264 file is such a copy too, its turn in band only (a display orientation SEI in
    /// every access unit, which FFmpeg's decoder gives each frame: ffmpeg and mpv show
    /// it upright) and none in its `tkhd` (so the first file's never reaches the others).
    /// - Throws: what `ExportSource/init(directory:)` throws;
    ///   ``RecordingError/outputExists(path:)`` without `force` (with it, the files in
    ///   `LIST-files/` the replaced list named that this export does not write are removed
    ///   once the new list is in place; copies are written as `NAME.partial` and renamed
    ///   once all are whole, and the `.partial` files an interrupted export left are
    ///   removed first, with or without `force`);
    ///   ``RecordingError/io(path:underlying:)`` when writing fails; ``FFmpegError`` when a
    ///   copy cannot be made (copies and links made so far are removed).
    package static func exportConcat(from directory: URL, to list: URL, force: Bool = false) throws -> ConcatResult {
        let source = try ExportSource(directory: directory)
        let folder = list.deletingLastPathComponent()
        let segments = source.manifest.segments
        let codecs = try segments.map { try FragmentedRemuxer.codecName(path: source.path(of: $0)) }
        // The concat demuxer keeps the first file's display matrix: when the files turn
        // differently, each turned H.264 file is listed as a copy that says so in band.
        let turnsDiffer = Set(segments.map { $0.rotationDegrees ?? 0 }).count > 1
        let turnedInBand = zip(segments, codecs).map { turnsDiffer && ($0.rotationDegrees ?? 0) != 0 && $1 == "h264" }
        let needsCopy = zip(codecs, turnedInBand).map { $0 != "h264" || $1 }
        let recordingPrefix = relativePath(from: folder, to: directory)
        let direct = segments.map { recordingPrefix.isEmpty ? $0.file : recordingPrefix + "/" + $0.file }
        let needsLink = zip(needsCopy, direct).map { !$0 && !isSafeConcatPath($1) }
        let copies = folder.appendingPathComponent(safeConcatName(list.deletingPathExtension().lastPathComponent) + "-files")
        // An export stopped while it replaced an earlier list left its files to be replaced.
        let replaces = force || StagedExportFiles.wasInterruptedReplacing(list.path)
        let previous = StagedExportFiles.previousNames(of: list.path, force: force) { ConcatList.fileNames(in: $0, under: copies.lastPathComponent) }
        let listOutput = try ExportOutput(folder: folder, paths: [list.path], force: replaces, protecting: source, removesExisting: false)
        let copyPaths = zip(segments, needsCopy).filter(\.1).map { copies.appendingPathComponent($0.0.file).path }
        let linkPaths = zip(segments, needsLink).filter(\.1).map { copies.appendingPathComponent($0.0.file).path }
        // Copies and links are made as NAME.partial and renamed once all are whole (an
        // interrupted export leaves nothing a list names; the next one removes what it left).
        let copiesOutput =
            try (copyPaths + linkPaths).isEmpty
            ? nil : ExportOutput(folder: copies, paths: copyPaths + linkPaths, force: replaces, protecting: source, removesExisting: false)
        let staged = try StagedExportFiles(finals: copyPaths + linkPaths, source: source)
        let linkPrefix = relativePath(from: copies, to: directory)
        do {
            var entries: [ConcatList.Entry] = []
            for (index, segment) in segments.enumerated() {
                let path = copies.appendingPathComponent(segment.file).path
                if needsCopy[index] {
                    try writeInBandCopy(of: segment, in: source, to: StagedExportFiles.staged(path), rotationInBandOnly: turnedInBand[index])
                } else if needsLink[index] {
                    do {
                        try FileManager.default.createSymbolicLink(
                            atPath: StagedExportFiles.staged(path), withDestinationPath: linkPrefix.isEmpty ? segment.file : linkPrefix + "/" + segment.file)
                    } catch { throw RecordingError.io(path: path, underlying: ExportOutput.reason(error)) }
                }
                let listed = needsCopy[index] || needsLink[index] ? copies.lastPathComponent + "/" + segment.file : direct[index]
                entries.append(ConcatList.Entry(path: listed, duration: ExportSource.duration(of: segment)))
            }
            let text = ConcatList(entries: entries).render()
            let removed = try staged.publish(text, at: list.path, replacing: previous, in: copies, source: source)
            if removed > 0 && copyPaths.isEmpty && linkPaths.isEmpty { rmdir(copies.path) }  // only when left empty
            return ConcatResult(
                list: list, text: text, segments: entries.count, frames: segments.reduce(0) { $0 + $1.frameCount }, copies: needsCopy.filter { $0 }.count,
                links: needsLink.filter { $0 }.count, warnings: rotationChangeWarnings(segments, codecs: codecs, export: "concat"),
                turnedCopies: turnedInBand.filter { $0 }.count, staleFilesRemoved: removed)
        } catch {
            staged.discard()
            copiesOutput?.removeCreatedFolderIfEmpty()
            listOutput.removeCreatedFolderIfEmpty()
            throw error
        }
    }

    /// Remuxes `segment` with in-band parameter sets (and, with `rotationInBandOnly`, its
    /// display matrix as a display orientation SEI in every access unit instead of in its
    /// `tkhd`) into `path`, with its own sound
    /// re-encoded from its first sample (a fragmented file cannot hide AAC priming from
    /// FFmpeg 5.1).
    private static func writeInBandCopy(of segment: SegmentRecord, in source: ExportSource, to path: String, rotationInBandOnly: Bool) throws {
        let sound = try ExportAudio.settings(of: [segment]).map { settings in
            let track = try EncodedAudioTrack(encoding: ExportAudio.pcm(of: segment, in: source, settings: settings), settings: settings)
            return AudioPacketSlice(track: track, range: 0..<track.packetCount)
        }
        _ = try FragmentedRemuxer.remux(
            input: source.path(of: segment), initOutput: path, mediaOutput: nil, offset: .zero, end: ExportSource.duration(of: segment), decodeFloor: nil,
            audio: sound, rotationInBandOnly: rotationInBandOnly)
    }

    /// Whether FFmpeg's concat demuxer takes `path` with its default `safe=1`
    /// (`safe_filename` in libavformat/concatdec.c): relative, and every `/`-separated
    /// component non-empty, starting with an ASCII letter, digit, `_` or `-`, and holding
    /// only those and `.`.
    package static func isSafeConcatPath(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { component in
            guard let first = component.unicodeScalars.first, first != "." else { return false }
            return component.unicodeScalars.allSatisfy { isSafeConcatScalar($0) || $0 == "." }
        }
    }

    /// `name` with every character the concat demuxer refuses (and a leading `.`) made `_`.
    package static func safeConcatName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for (index, scalar) in name.unicodeScalars.enumerated() { scalars.append(isSafeConcatScalar(scalar) || (scalar == "." && index > 0) ? scalar : "_") }
        return scalars.isEmpty ? "list" : String(scalars)
    }

    private static func isSafeConcatScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }
}
