import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// n01: an FLV live stream of two pushes, 640x360 (45 frames), then a new AVC sequence
/// header and 360x640 (45) with timestamps starting again at 0. The pass-through source
/// continues the timeline at the restart (one frame period after the last frame), so the
/// recorder keeps all 90 frames in two files.
@Suite(
    "Cases: timestamps restarting at a new sequence header (FLV)", .tags(.cases, .media),
    .enabled(
        if: FileManager.default.fileExists(atPath: TimingCases.file("n01_flv_restart_640x360_360x640.flv").path),
        "../shared/cases/n01_flv_restart_640x360_360x640.flv missing: FLV restart tests skipped")) struct CasesSequenceRestartTests
{
    static let path = TimingCases.file("n01_flv_restart_640x360_360x640.flv").path

    /// The decoder marks picture 45 (the first of the second push) and only it; the source
    /// hands out 90 frames whose session times strictly increase, frame 45 one frame period
    /// (1/30 s, on the FLV's millisecond clock) after frame 44, with one warning naming the restart.
    @Test func sourceContinuesTheTimelineAtTheRestart() throws {
        let decoder = try VideoFileDecoder(path: Self.path)
        let source = try FilePassThroughSource(decoder: decoder)
        var frames: [VideoFrame] = []
        var warnings: [String] = []
        while let event = try source.next() {
            switch event {
            case .frame(let frame): frames.append(frame)
            case .warning(let warning): warnings.append(warning)
            default: break
            }
        }
        #expect(frames.count == 90)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.sessionTime < $1.sessionTime })
        #expect(frames.prefix(45).allSatisfy { $0.dimensions == VideoDimensions(width: 640, height: 360) })
        #expect(frames.suffix(45).allSatisfy { $0.dimensions == VideoDimensions(width: 360, height: 640) })
        let step = try frames[45].deviceTime.subtracting(frames[44].deviceTime)
        #expect(step == MediaTime(value: 33, timescale: 1000), "\(step)")
        #expect(warnings.filter { $0.contains("a restart at a new sequence header") }.count == 1, "\(warnings)")
    }

    /// Recorded: 90 of 90 frames, 640x360 then 360x640, 45 each; ffprobe decodes 45 from each file.
    @Test func recordingKeepsEveryFrameInTwoFiles() async throws {
        let (code, dir, manifest) = try await TimingCases.record(["--source", Self.path], preset: "ultrafast")
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 90 && m.frames.written == 90 && m.frames.dropped == 0)
        #expect(m.segments.map { "\($0.width)x\($0.height):\($0.frameCount)" } == ["640x360:45", "360x640:45"])
        for segment in m.segments { #expect(try TimingCases.probeStream(dir.appendingPathComponent(segment.file)).frames == 45) }
    }
}
