import Foundation
import SegRecKit

/// `segrec recover DIR`: completes a recording whose process died (see
/// `RecordingRecovery`). Exits 0 when the folder is (now) a finished recording, 73 while
/// the recording process still holds it, 66 without a manifest, 65 for a bad one, 74 when a
/// rebuilt file or the manifest cannot be written (e.g. no space: the folder is left as it was).
enum RecoverCommand {
    static let options: [OptionSpec] = [.flag("help", help: "Show help.")]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "recover", options: options, usage: "segrec recover DIR",
                abstract:
                    "Complete an interrupted recording: turn every segment's .partial file into a finished MP4 holding its complete fragments, and complete the manifest (stopReason interrupted). A finished file is believed over the journal. It changes nothing it cannot complete (no space: exit 74, the folder as it was); running it twice changes nothing."
            )
        else { return }
        let directory = try parsed.existingFolder(command: "recover")
        let report = try RecordingRecovery.recover(directory)
        guard report.changed else {
            print("\(directory.path): nothing to recover (stopReason \(report.manifest.stopReason?.rawValue ?? "null"))")
            return
        }
        let recovery = report.manifest.recovery
        var rows = [["file", "size", "frames", "session start (s)", "session end (s)", "recovered"]]
        for s in report.manifest.segments {
            rows.append([
                s.file, "\(s.width)x\(s.height)", "\(s.frameCount)", DecimalSeconds.text(s.sessionStart), DecimalSeconds.text(s.sessionEnd),
                recovery?.recoveredFiles.contains(s.file) == true ? "yes" : ""
            ])
        }
        print(TextTable.render(rows))
        let lostAfter = recovery?.lostAfter.map { "\(DecimalSeconds.text($0)) s" } ?? "the start"
        print(
            "recovered \(recovery?.recoveredFiles.count ?? 0) file(s); \(recovery?.framesRecovered ?? 0) frames kept, frames after \(lostAfter) are lost (\(recovery?.framesLost ?? 0) of them had reached the writer, counted as dropped: interrupted); stopReason \(report.manifest.stopReason?.rawValue ?? "interrupted")"
        )
        for warning in report.manifest.warnings { print("warning: \(warning)") }
    }
}
