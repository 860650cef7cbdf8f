import Foundation
import SegRecKit

/// `record`'s benchmarking options (Docs/performance.md), kept apart from the source handling:
/// `--stats FILE` (per-frame and per-switch timings as JSON lines), `--realtime`
/// (pace the source at its frame rate and drop the frames the recorder cannot take in
/// time, see ``RealtimePacer``) and `--frames-in-flight N` (how many pictures may wait for
/// the encoder: the latency and memory a recording may spend to absorb encoder hiccups).
extension RecordCommand {
    static let benchmarkOptions: [OptionSpec] = [
        .option("stats", "FILE", help: "Write per-frame delivery/acceptance times and segment switch timings (JSON lines)."),
        .flag("realtime", help: "Pace the source at its frame rate; frames the recorder cannot take in time are dropped (late)."),
        .option(
            "frames-in-flight", "N",
            help:
                "Pictures queued to the encoder at most, 1...\(RecordCommand.maximumFramesInFlight) (default \(SegmentMuxer.framesInFlight); \(SegmentMuxer.passThroughFramesInFlight) for a file passed through without --realtime, \(SegmentMuxer.rawFrameStreamFramesInFlight) for a YUV4MPEG2 or raw video one; half a second of frames, at least \(SegmentMuxer.framesInFlight), for a file or pipe with --realtime): with --realtime a frame that finds the queue full is dropped (late), else the source waits."
        )
    ]

    /// `--frames-in-flight N`, checked before anything is created; nil when not given.
    /// - Throws: a usage error (64) for a value that is not an integer in
    ///   1...``maximumFramesInFlight``.
    static func framesInFlight(_ parsed: ParsedArguments) throws -> Int? {
        try parsed.value("frames-in-flight").map { try ArgumentParser.integer($0, option: "frames-in-flight", in: 1...maximumFramesInFlight) }
    }

    /// The largest `--frames-in-flight`: 240 pictures, 4 s at 60 fps (about 1.3 GB of
    /// 1920x1920 NV12 pictures if every one waits).
    static let maximumFramesInFlight = 240
}
