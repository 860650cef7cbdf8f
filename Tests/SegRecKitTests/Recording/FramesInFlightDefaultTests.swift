import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// How many pictures may wait for the encoder when `--frames-in-flight` is not given:
/// ``SegmentMuxer/rawFrameStreamFramesInFlight`` for a raw frame stream (here YUV4MPEG2) and
/// ``SegmentMuxer/passThroughFramesInFlight`` for another file passed through without
/// `--realtime`, half a second of frames for a file paced with `--realtime` (15 for the 30 fps
/// clip: ``SegmentMuxer/realtimeFootageFramesInFlight(frameRate:)``),
/// ``SegmentMuxer/framesInFlight`` otherwise; the option always wins.
@Suite("Recording: the writer queue's default depth", .tags(.recording)) struct FramesInFlightDefaultTests {
    static func request(_ dir: URL, file: Bool, realtime: Bool, framesInFlight: Int? = nil) throws -> (RecordingConfiguration, PullInput) {
        var request = RecordingConfiguration(output: dir.appendingPathComponent("out"))
        var input = PullInput()
        if file {
            let clip = dir.appendingPathComponent("clip.y4m")
            if !FileManager.default.fileExists(atPath: clip.path) { try MediaTestSupport.writeY4M(to: clip, width: 64, height: 48, frames: 3) }
            input.source = .file(clip.path)
        } else {
            input.scenario = try Scenario.decode(Data(#"{"device": {"format": 1280, "fps": 30}, "durationSeconds": 0.5}"#.utf8), file: "short.json")
        }
        input.realtime = realtime
        request.framesInFlight = framesInFlight
        request.encoder = RecorderTestSupport.settings
        return (request, input)
    }

    @Test(
        arguments: [
            (true, false, nil, SegmentMuxer.rawFrameStreamFramesInFlight), (true, true, nil, 15), (false, false, nil, SegmentMuxer.framesInFlight),
            (false, true, nil, SegmentMuxer.framesInFlight), (true, false, 9, 9), (false, false, 3, 3)
        ] as [(Bool, Bool, Int?, Int)]) func depth(file: Bool, realtime: Bool, option: Int?, expected: Int) throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (configuration, input) = try Self.request(dir, file: file, realtime: realtime, framesInFlight: option)
        let recorder = try Recorder(configuration, input: .pull(input))
        #expect(recorder.muxerConfiguration.framesInFlight == expected)
    }

    /// One in flight still records every frame of a raw frame stream, in order.
    @Test func passThroughRecordsEveryFrame() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.y4m")
        try MediaTestSupport.writeY4M(to: clip, width: 64, height: 48, frames: 40)
        var (request, input) = try Self.request(dir, file: true, realtime: false)
        input.source = .file(clip.path)
        let recorder = try Recorder(request, input: .pull(input))
        #expect(recorder.muxerConfiguration.framesInFlight == 1)
        let manifest = try await recorder.run()
        #expect(manifest.segments.map(\.frameCount) == [40])
        #expect(manifest.frames.dropped == 0)
    }
}
