import Foundation
import SegRecKit

/// `record`'s benchmarking options (issue 7), kept apart from the source handling:
/// `--stats FILE` (per-frame and per-switch timings as JSON lines) and `--realtime`
/// (pace the source at its frame rate and drop the frames the recorder cannot take in
/// time, see ``RealtimePacer``).
extension RecordCommand {
    static let benchmarkOptions: [OptionSpec] = [
        .option("stats", "FILE", help: "Write per-frame delivery/acceptance times and segment switch timings (JSON lines)."),
        .flag("realtime", help: "Pace the source at its frame rate; frames the recorder cannot take in time are dropped (late)."),
    ]

    /// `source` and `configuration` with `--realtime` (a ``RealtimePacer`` around the
    /// source) and `--stats` (statistics in the configuration, and the file to write them
    /// to) applied.
    /// - Parameter expectedFrames: capacity to reserve for per-frame timings.
    /// - Throws: a `--stats` path whose folder does not exist (73).
    static func applyBenchmarkOptions(_ parsed: ParsedArguments, source: any CaptureOutputEventSource,
                                      configuration: SegmentMuxer.Configuration, expectedFrames: Int = 0)
        throws -> (any CaptureOutputEventSource, SegmentMuxer.Configuration, URL?) {
        let paced: any CaptureOutputEventSource = parsed.flag("realtime") ? RealtimePacer(wrapping: source) : source
        var configuration = configuration
        // Real time never waits for the encoder: a frame that finds the writer queue full is dropped late.
        configuration.dropsFramesWhenBehind = parsed.flag("realtime")
        var statisticsURL: URL?
        if let path = parsed.value("stats") {
            let url = URL(fileURLWithPath: path)
            let folder = url.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: folder.path) else {
                throw CommandLineError("\(path): --stats: folder \(folder.path) does not exist", exitCode: .cannotCreate)
            }
            configuration.statistics = RecordingStatistics(expectedFrames: expectedFrames)
            statisticsURL = url
        }
        return (paced, configuration, statisticsURL)
    }
}
