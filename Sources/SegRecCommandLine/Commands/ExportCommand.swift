import Foundation
import SegRecKit

/// `segrec export DIR --hls OUT | --concat LIST`: makes a recording folder play as one
/// stream: an HLS playlist of fMP4 segments (remuxed, not re-encoded) and/or an ffconcat
/// list. Refuses to replace existing files without `--force` (exit 73).
enum ExportCommand {
    static let options: [OptionSpec] = [
        .option("hls", "OUT", help: "Write an HLS playlist (version 7, fMP4): OUT is a folder (gets index.m3u8) or a .m3u8 path (files go beside it)."),
        .option("concat", "LIST", help: "Write an ffconcat list (e.g. rec.ffconcat) with exact durations; paths relative to the list."),
        .option("wall-clock", "ISO8601", help: "With --hls: wall-clock time of the first frame (e.g. 2026-11-30T08:00:00.000Z); adds EXT-X-PROGRAM-DATE-TIME."),
        .flag("force", help: "Replace files of the same names."), .flag("help", help: "Show help.")
    ]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "export", options: options, usage: "segrec export DIR [--hls OUT] [--concat LIST] [--wall-clock ISO8601] [--force]",
                abstract:
                    "Play a segmented recording as one: an HLS playlist whose size changes are discontinuities with their own init sections, or an ffconcat list with exact durations. Never re-encodes."
            )
        else { return }
        let directory = try parsed.existingFolder(command: "export")
        let hls = parsed.value("hls")
        let concat = parsed.value("concat")
        guard hls != nil || concat != nil else { throw CommandLineError("export: nothing to do; give --hls OUT and/or --concat LIST", exitCode: .usage) }
        var wallClock: Date?
        if let text = parsed.value("wall-clock") {
            guard hls != nil else { throw CommandLineError("export: --wall-clock needs --hls", exitCode: .usage) }
            guard let date = RecordingExporter.parseWallClock(text) else {
                throw CommandLineError(
                    "export: --wall-clock: '\(text)' is not an ISO 8601 date-time with a time zone, e.g. 2026-11-30T08:00:00.000Z", exitCode: .usage)
            }
            wallClock = date
        }
        for (name, value) in [("hls", hls), ("concat", concat)] where value?.isEmpty == true {
            throw CommandLineError("export: --\(name) needs a non-empty path", exitCode: .usage)
        }
        let force = parsed.flag("force")
        if let hls {
            let result = try RecordingExporter.exportHLS(from: directory, to: URL(fileURLWithPath: hls), wallClock: wallClock, force: force)
            print(
                "hls: \(result.playlist.path): \(result.segments) segment(s), \(result.frames) frames, \(result.discontinuities) discontinuit\(result.discontinuities == 1 ? "y" : "ies"), \(result.bytes) bytes (remuxed, not re-encoded)"
            )
        }
        if let concat {
            let result = try RecordingExporter.exportConcat(from: directory, to: URL(fileURLWithPath: concat), force: force)
            let copies =
                result.copies > 0
                ? " (\(result.copies) HEVC file(s) remuxed with in-band parameter sets into \(result.list.deletingPathExtension().lastPathComponent)-files/)"
                : ""
            print(
                "concat: \(result.list.path): \(result.segments) file(s), \(result.frames) frames\(copies); play with: ffmpeg -f concat -safe 0 -i \(result.list.path)"
            )
        }
    }
}
