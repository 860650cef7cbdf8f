import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `record --frames-in-flight N`: how many pictures may wait for the encoder.
/// A bad value is a usage error before anything is created; a queue of one picture still
/// records every frame across a segment switch (back-pressure, nothing dropped), and the
/// largest queue is accepted.
@Suite("CommandLine: --frames-in-flight", .tags(.commandLine)) struct FramesInFlightOptionTests {
    typealias P = CommandLineProcess

    @Test(
        "a value outside 1...240 or not an integer exits 64 naming the option and the range; nothing is created",
        arguments: ["0", "241", "-1", "six", "1.5", ""]) func badValue(_ value: String) async throws
    {
        let folder = try P.temporaryFolder("fif-bad")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        #expect(await SegRecCommand.main(["record", "--frames-in-flight", value, "--output", out.path, "--quiet"]) == 64)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        do {
            _ = try RecordCommand.framesInFlight(try ArgumentParser.parse(["--frames-in-flight", value], command: "record", options: RecordCommand.options))
            Issue.record("--frames-in-flight \(value) was accepted")
        } catch let error as CommandLineError {
            #expect(error.message.contains("--frames-in-flight"), "\(error.message)")
            #expect(error.message.contains("1...240"), "\(error.message)")
            #expect(error.exitCode == .usage)
        }
    }

    /// 1 fps synthetic 1280 format, 8 frames, 16x9 → 1x1 at 4 s (latency 1 frame: the first
    /// 1x1 frame is 5): with one picture in flight every frame is still written, in order.
    @Test("one picture in flight: every frame written across a switch, stamps 0...7 in order", arguments: ["1", "240"]) func smallestAndLargestQueue(
        _ value: String
    ) async throws {
        let folder = try P.temporaryFolder("fif-one")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = folder.appendingPathComponent("s.json")
        try Data(
            #"""
            {"device": {"format": 1280, "fps": 1, "initialAspectRatio": "16x9", "changeLatencyFrames": 1},
             "sessionStartSeconds": 1.0, "durationSeconds": 8,
             "events": [{"atSeconds": 4.0, "setDynamicAspectRatio": "1x1"}]}
            """#.utf8
        ).write(to: scenario)
        let out = folder.appendingPathComponent("out")
        #expect(
            await SegRecCommand.main([
                "record", "--scenario", scenario.path, "--frames-in-flight", value, "--preset", "ultrafast", "--output", out.path, "--quiet"
            ]) == 0)
        let manifest = try JSONDecoder().decode(RecordingManifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.frames.received == 8)
        #expect(manifest.frames.written == 8)
        #expect(manifest.frames.dropped == 0)
        #expect(manifest.segments.map(\.frameCount) == [5, 3])
        let first = out.appendingPathComponent(manifest.segments[0].file)
        let second = out.appendingPathComponent(manifest.segments[1].file)
        #expect(try RecorderTestSupport.stampedIndices(first) == [0, 1, 2, 3, 4])
        #expect(try RecorderTestSupport.stampedIndices(second) == [5, 6, 7])
        if let (w, h, n) = try RecorderTestSupport.probe(first) { #expect((w, h, n) == (1280, 720, 5)) }
        if let (w, h, n) = try RecorderTestSupport.probe(second) { #expect((w, h, n) == (1280, 1280, 3)) }
    }
}
