import Foundation
import SegRecKit

/// `segrec report DIR`: writes `DIR/report.html` (timeline to scale, markers, session
/// events, camera-switch gaps, upright posters, one player for the whole recording and one
/// per segment, warnings), `DIR/report-posters/*.jpg` and `DIR/report-hls/` (the whole
/// recording's HLS export). Needs nothing beyond FFmpeg.
enum ReportCommand {
    static let options: [OptionSpec] = [
        .flag("force", help: "Replace an existing report.html, its posters and its HLS export."), .flag("help", help: "Show help.")
    ]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "report", options: options, usage: "segrec report DIR [--force]",
                abstract:
                    "Write DIR/report.html: a self-contained page with the timeline drawn to scale (a bar per segment, change markers with exact times, session events, camera-switch gaps, each segment's waveform under its bar), one player for the whole recording (its HLS export, in DIR/report-hls/), an upright poster and a player per segment (loaded when played), warnings and drops. Posters go to DIR/report-posters/."
            )
        else { return }
        let directory = try parsed.existingFolder(command: "report")
        var written: RecordingReport.Result?
        try ExportCommand.readingRecording(directory, command: "report") { written = try RecordingReport.write(for: directory, force: parsed.flag("force")) }
        guard let result = written else { return }
        for warning in result.hls.warnings { Terminal.writeStandardError("segrec: warning: \(warning)\n") }
        print(
            "report: \(result.page.path) (\(result.pageBytes) bytes, \(result.posters.count) poster(s) in \(RecordingReport.postersFolder)/, HLS export of \(result.hls.segments) media segment(s) in \(RecordingReport.hlsFolder)/)"
        )
    }
}
