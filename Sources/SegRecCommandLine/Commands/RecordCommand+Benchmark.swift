import Foundation
import SegRecKit

/// `record`'s benchmarking options (issue 7), kept apart from the source handling:
/// `--stats FILE` (per-frame and per-switch timings as JSON lines) and `--realtime`
/// (pace the source at its frame rate and drop the frames the recorder cannot take in
/// time, see ``RealtimeEventSource``).
extension RecordCommand {
    static let benchmarkOptions: [OptionSpec] = [
        .option("stats", "FILE", help: "Write per-frame delivery/acceptance times and segment switch timings (JSON lines)."),
        .flag("realtime", help: "Pace the source at its frame rate; frames the recorder cannot take in time are dropped (late)."),
    ]

    /// `pipeline` with `--realtime` and `--stats` applied.
    /// - Parameter expectedFrames: capacity to reserve for per-frame timings.
    static func applyBenchmarkOptions(_ parsed: ParsedArguments, to pipeline: RecordingPipeline,
                                      expectedFrames: Int = 0) throws -> RecordingPipeline {
        var result = pipeline
        if parsed.flag("realtime") {
            let paced = RealtimeEventSource(wrapping: pipeline.source, recorder: pipeline.recorder)
            result = RecordingPipeline(source: paced, recorder: pipeline.recorder)
        }
        if let path = parsed.value("stats") {
            let url = URL(fileURLWithPath: path)
            let folder = url.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: folder.path) else {
                throw CommandLineError("\(path): --stats: folder \(folder.path) does not exist", exitCode: .cannotCreate)
            }
            result.statistics = RecordingStatistics(expectedFrames: expectedFrames)
            result.statisticsURL = url
        }
        return result
    }
}
