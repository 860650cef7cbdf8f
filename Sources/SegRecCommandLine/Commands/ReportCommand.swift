import Foundation
import SegRecKit

/// `segrec report DIR`: writes `DIR/report.html` (timeline to scale, markers, posters,
/// players, warnings) and `DIR/report-posters/*.jpg`. Needs nothing beyond FFmpeg.
enum ReportCommand {
    static let options: [OptionSpec] = [.flag("force", help: "Replace an existing report.html and its posters."), .flag("help", help: "Show help.")]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "report", options: options, usage: "segrec report DIR [--force]",
                abstract:
                    "Write DIR/report.html: a self-contained page with the timeline drawn to scale (a bar per segment, change markers with exact times), a poster and a player per segment, warnings and drops. Posters go to DIR/report-posters/."
            )
        else { return }
        let directory = try parsed.existingFolder(command: "report")
        let result = try RecordingReport.write(for: directory, force: parsed.flag("force"))
        print("report: \(result.page.path) (\(result.pageBytes) bytes, \(result.posters.count) poster(s) in \(RecordingReport.postersFolder)/)")
    }
}
