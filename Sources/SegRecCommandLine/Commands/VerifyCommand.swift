import Foundation
import SegRecKit

/// `segrec verify DIR`: reads the manifest and every file back with libavformat and checks
/// sizes, frame counts, first keyframes, exact tiling and, where frames carry the stamp,
/// every frame's index. Prints a table; exits 0 only when everything holds (else 1).
enum VerifyCommand {
    static let options: [OptionSpec] = [.flag("help", help: "Show help.")]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "verify", options: options, usage: "segrec verify DIR",
                abstract:
                    "Check a recording folder: every file opens with libavformat, has one size, the manifest's frame count, a first keyframe, exact tiling, (when stamped) every frame index with none lost or duplicated, and (with sound) each audio track's length to the sample and every synthetic click within 1 ms of its second."
            )
        else { return }
        let directory = try parsed.existingFolder(command: "verify")
        let report = try RecordingVerifier.verify(directory)
        // Several-camera recordings get a column naming the camera(s) read from rows 16–31.
        let cameras = report.segments.contains { !$0.producers.isEmpty }
        var rows = [["file", "size", "frames", "bytes", "stamped indices"] + (cameras ? ["cameras"] : []) + ["result"]]
        for s in report.segments {
            rows.append(
                [s.file, s.dimensions, "\(s.frames)", "\(s.byteCount)", s.stampRange.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "-"]
                    + (cameras ? [s.producers.isEmpty ? "-" : s.producers.joined(separator: "→")] : []) + [
                        s.problems.isEmpty ? "ok" : "FAIL: " + s.problems.joined(separator: "; ")
                    ])
        }
        print(TextTable.render(rows))
        for problem in report.problems { print("FAIL: \(problem)") }
        print(report.passed ? "verified: \(report.segments.count) segment(s) ok" : "verification failed")
        if !report.passed { throw CommandLineError("verify: \(directory.path) does not hold a valid recording", exitCode: .failure) }
    }
}
