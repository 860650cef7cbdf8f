import Foundation
import SegRecKit

/// `segrec export DIR --hls OUT | --concat LIST | --mp4 FILE`: makes a recording folder play
/// as one stream: an HLS playlist of fMP4 segments (remuxed, not re-encoded), an ffconcat
/// list, and/or one MP4 file re-encoded onto one canvas (``OneFileExport``). Refuses to
/// replace existing files without `--force` (exit 73).
enum ExportCommand {
    static let options: [OptionSpec] = [
        .option("hls", "OUT", help: "Write an HLS playlist (version 7, fMP4): OUT is a folder (gets index.m3u8) or a .m3u8 path (files go beside it)."),
        .option("concat", "LIST", help: "Write an ffconcat list (e.g. rec.ffconcat) with exact durations; paths relative to the list."),
        .option(
            "mp4", "FILE",
            help:
                "Write one MP4 file (H.264, re-encoded): every segment turned upright, scaled to fit one canvas with black bars, every frame at its session time."
        ), .option("canvas", "WxH", help: "With --mp4: the frame size (even sides); default the largest width and height over the segments, after rotation."),
        .option(
            "hls-segment-duration", "SECONDS",
            help: "With --hls: the longest media segment, cut at keyframes (decimal, default 4); a longer keyframe interval makes a longer one (warned)."),
        .option("wall-clock", "ISO8601", help: "With --hls: wall-clock time of the first frame (e.g. 2026-11-30T08:00:00.000Z); adds EXT-X-PROGRAM-DATE-TIME."),
        .flag(
            "hls-discontinuities",
            help:
                "With --hls: EXT-X-DISCONTINUITY before each file after the first, for browsers (Chromium's native HLS needs it; VLC 3 stops at the first one)."
        ), .flag("force", help: "Replace files of the same names."), .flag("help", help: "Show help.")
    ]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "export", options: options,
                usage:
                    "segrec export DIR [--hls OUT] [--concat LIST] [--mp4 FILE [--canvas WxH]] [--hls-segment-duration SECONDS] [--wall-clock ISO8601] [--hls-discontinuities] [--force]",
                abstract:
                    "Play a segmented recording as one: an HLS playlist with an init section per file on one continuous timeline, or an ffconcat list with exact durations (neither re-encodes a picture; the HLS sound is one AAC stream encoded once, the list keeps the files' own), or one MP4 file re-encoded onto one canvas, upright, with one continuous sound track, for sharing or editing."
            )
        else { return }
        let directory = try parsed.existingFolder(command: "export")
        let hls = parsed.value("hls")
        let concat = parsed.value("concat")
        let mp4 = parsed.value("mp4")
        var canvas: VideoDimensions?
        if let text = parsed.value("canvas") {
            guard mp4 != nil else { throw CommandLineError("export: --canvas needs --mp4", exitCode: .usage) }
            let sides = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            let side = 2...OneFileExport.maximumCanvasSide
            guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]), side.contains(width), side.contains(height), width % 2 == 0,
                height % 2 == 0
            else {
                throw CommandLineError(
                    "export: --canvas: '\(Excerpt.of(text))' is not allowed; allowed: WxH in pixels, each side even and from 2 to \(OneFileExport.maximumCanvasSide) (4:2:0 H.264), e.g. 1920x1080",
                    exitCode: .usage)
            }
            canvas = VideoDimensions(width: width, height: height)
        }
        var wallClock: Date?
        if let text = parsed.value("wall-clock") {
            guard hls != nil else { throw CommandLineError("export: --wall-clock needs --hls", exitCode: .usage) }
            guard let date = RecordingExporter.parseWallClock(text) else {
                throw CommandLineError(
                    "export: --wall-clock: '\(text)' is not an ISO 8601 date-time with a time zone naming a day and time that exist, e.g. 2026-11-30T08:00:00.000Z",
                    exitCode: .usage)
            }
            wallClock = date
        }
        for (name, value) in [("hls", hls), ("concat", concat), ("mp4", mp4)] where value?.isEmpty == true {
            throw CommandLineError("export: --\(name) needs a non-empty path", exitCode: .usage)
        }
        var mediaSegmentDuration = RecordingExporter.defaultMediaSegmentDuration
        if let text = parsed.value("hls-segment-duration") {
            guard hls != nil else { throw CommandLineError("export: --hls-segment-duration needs --hls", exitCode: .usage) }
            guard let milliseconds = DecimalSecondsArgument.units(text, decimals: 3, wholeDigits: 5), milliseconds >= 100, milliseconds <= 86_400_000 else {
                throw CommandLineError(
                    "export: --hls-segment-duration: '\(text)' is not allowed; allowed: seconds from 0.1 to 86400 with up to 3 decimals, e.g. 4 or 2.5",
                    exitCode: .usage)
            }
            mediaSegmentDuration = MediaTime(value: milliseconds, timescale: 1000)
        }
        let discontinuities = parsed.flag("hls-discontinuities")
        guard !discontinuities || hls != nil else { throw CommandLineError("export: --hls-discontinuities needs --hls", exitCode: .usage) }
        // Each option that belongs to an output was checked above ("--canvas needs --mp4"),
        // so an option given without its output is named before this.
        guard hls != nil || concat != nil || mp4 != nil else {
            throw CommandLineError("export: nothing to do; give --hls OUT, --concat LIST and/or --mp4 FILE", exitCode: .usage)
        }
        try checkDistinct(hls: hls, concat: concat, mp4: mp4)
        let force = parsed.flag("force")
        try readingRecording(directory) {
            try export(
                directory, hls: hls, concat: concat, mp4: mp4, canvas: canvas, wallClock: wallClock, hlsOptions: (mediaSegmentDuration, discontinuities),
                force: force)
        }
    }

    /// What one output of `export` writes: its main paths (a playlist, list or file, and
    /// the folder it makes its own) and a test for every other path it writes or stages.
    private struct OutputClaim {
        let option: String
        let paths: [String]
        let writes: (String) -> Bool
    }

    /// Two outputs never write the same file (the second would replace the first's, `--force`
    /// or not): none of an output's paths may be one the other writes, the HLS export's
    /// `PREFIXsegment-…` files beside its playlist, the concat list's `LIST-files/`, the
    /// playlist's and list's `.partial` (an earlier one set aside), the MP4 file's
    /// `FILE.partial`, `.tmp`, `.export`, `.export.partial` and `.export.tmp` included. Compared after `..` and
    /// the folders' symbolic links are resolved.
    /// - Throws: a usage error (exit 64) naming both options, before anything is written.
    private static func checkDistinct(hls: String?, concat: String?, mp4: String?) throws {
        let resolve = RecordingExporter.resolvedOutputPath
        var claims: [OutputClaim] = []
        if let hls {
            let layout = RecordingExporter.HLSLayout(output: URL(fileURLWithPath: hls))
            let playlist = resolve(layout.folder.appendingPathComponent(layout.playlistName).path)
            let folder = resolve(layout.folder.path)
            let prefix = folder + "/" + layout.prefix + "segment-"
            claims.append(
                OutputClaim(option: "--hls", paths: [playlist] + (layout.prefix.isEmpty ? [resolve(hls)] : [])) {
                    $0 == playlist || $0 == playlist + ".partial" || $0.hasPrefix(prefix)
                })
        }
        if let concat {
            let list = resolve(concat)
            let url = URL(fileURLWithPath: list)
            let files = url.deletingLastPathComponent().appendingPathComponent(
                RecordingExporter.safeConcatName(url.deletingPathExtension().lastPathComponent) + "-files"
            ).path
            claims.append(
                OutputClaim(option: "--concat", paths: [list, files]) { $0 == list || $0 == list + ".partial" || $0 == files || $0.hasPrefix(files + "/") })
        }
        if let mp4 {
            let file = resolve(mp4)
            let names = Set(["", ".partial", ".tmp", ".export", ".export.partial", ".export.tmp"].map { file + $0 })
            claims.append(OutputClaim(option: "--mp4", paths: [file]) { names.contains($0) })
        }
        for first in claims {
            for second in claims where second.option != first.option {
                if let path = first.paths.first(where: second.writes) {
                    throw CommandLineError(
                        "export: \(first.option) and \(second.option) would write the same file (\(path)); give each output its own path", exitCode: .usage)
                }
            }
        }
    }

    /// Runs `body`; an FFmpeg failure on a file of the recording in `directory` (a segment
    /// that cannot be read or decoded: damaged or cut short since it was recorded) becomes a
    /// data error (exit 65) naming the file, with the command that checks the recording.
    /// Other errors pass through as they are.
    static func readingRecording(_ directory: URL, command: String = "export", _ body: () throws -> Void) throws {
        do { try body() } catch RecordingError.badInput(let path, let field, let detail)
            where path.hasPrefix(directory.standardizedFileURL.path + "/") && (field == "frameCount" || field.hasPrefix("audio."))
        {
            // A segment file that holds less than its manifest record says.
            throw CommandLineError(
                "\(path): \(field): \(detail); the file does not hold what the manifest says: it was damaged or cut short after recording: check the recording with `segrec verify \(directory.path)`",
                exitCode: .dataError)
        } catch let error as FFmpegError where !error.isNoSpace && !error.isNotFound && !error.isExit {
            let folder = directory.standardizedFileURL.path
            guard let context = error.context, context.hasPrefix(folder + "/") else { throw error }
            throw CommandLineError(
                "\(command): \(context) cannot be read as recorded: \(error.call): \(error.message); the file was damaged or cut short after recording: check the recording with `segrec verify \(directory.path)`",
                exitCode: .dataError)
        }
    }

    private static func export(
        _ directory: URL, hls: String?, concat: String?, mp4: String?, canvas: VideoDimensions?, wallClock: Date?,
        hlsOptions: (mediaSegmentDuration: MediaTime, discontinuities: Bool), force: Bool
    ) throws {
        if let hls {
            let result = try RecordingExporter.exportHLS(
                from: directory, to: URL(fileURLWithPath: hls), wallClock: wallClock, mediaSegmentDuration: hlsOptions.mediaSegmentDuration,
                discontinuities: hlsOptions.discontinuities, force: force)
            var warnings = result.warnings
            if result.discontinuities > 0 {
                warnings.append(
                    "\(result.discontinuities) EXT-X-DISCONTINUITY tag(s) written (--hls-discontinuities): VLC 3 stops playing at the first one; for VLC, export without --hls-discontinuities"
                )
            }
            for warning in warnings { Terminal.writeStandardError("segrec: warning: \(warning)\n") }
            let replaced = result.staleFilesRemoved > 0 ? "; \(result.staleFilesRemoved) file(s) of the replaced export it no longer names removed" : ""
            print(
                "hls: \(result.playlist.path): \(result.segments) media segment(s) from \(result.files) file(s), \(result.frames) frames, \(result.discontinuities) discontinuit\(result.discontinuities == 1 ? "y" : "ies"), \(result.bytes) bytes (pictures remuxed, not re-encoded)\(result.audioSamples > 0 ? "; sound: one AAC stream of \(result.audioSamples) samples across the files" : "")\(replaced)"
            )
        }
        if let concat {
            let result = try RecordingExporter.exportConcat(from: directory, to: URL(fileURLWithPath: concat), force: force)
            for warning in result.warnings { Terminal.writeStandardError("segrec: warning: \(warning)\n") }
            let files = RecordingExporter.safeConcatName(result.list.deletingPathExtension().lastPathComponent) + "-files/"
            var extras: [String] = []
            if result.copies > 0 {
                let turned = result.turnedCopies > 0 ? ", \(result.turnedCopies) of them with their turn in band" : ""
                extras.append("\(result.copies) file(s) remuxed with in-band parameter sets into \(files)\(turned)")
            }
            if result.links > 0 {
                extras.append("\(result.links) file(s) listed through symbolic links in \(files) (a path the concat demuxer's safe mode takes)")
            }
            if result.staleFilesRemoved > 0 {
                extras.append("\(result.staleFilesRemoved) file(s) of the replaced list it no longer names removed from \(files)")
            }
            let detail = extras.isEmpty ? "" : " (" + extras.joined(separator: "; ") + ")"
            print(
                "concat: \(result.list.path): \(result.segments) file(s), \(result.frames) frames\(detail); play with: ffmpeg -f concat -i \(result.list.path)")
        }
        if let mp4 {
            // Re-encoding takes a while: a progress line on a terminal, as `record` shows.
            let line = ProgressLine(enabled: Terminal.standardErrorIsTerminal)
            defer { line.finish() }
            let result = try OneFileExport.export(from: directory, to: URL(fileURLWithPath: mp4), canvas: canvas, force: force) { done, total in
                line.update(exported: done, of: total)
            }
            line.finish()
            print(
                "mp4: \(result.file.path): \(result.frames) frames from \(result.segments) segment(s) on a \(result.canvas) canvas (\(result.rotatedSegments) turned upright, \(result.placedSegments) scaled or padded), \(DecimalSeconds.text(result.duration, digits: 6)) s at 1/\(result.timescale), \(result.bytes) bytes (H.264, re-encoded\(result.audioSamples > 0 ? "; AAC sound, \(result.audioSamples) samples" : ""))"
            )
        }
    }
}
