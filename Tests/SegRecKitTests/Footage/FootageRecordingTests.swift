import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Every real sample recorded with and without a scenario, checked with ffprobe and
/// RecordingVerifier.
@Suite(
    "Footage: real samples", .tags(.footage), .serialized,
    .enabled(if: FootageTestSupport.ready, "../shared/samples/ or ffmpeg/ffprobe missing: real-footage tests skipped")) struct FootageRecordingTests
{
    typealias T = FootageTestSupport

    @Test("pass-through keeps every frame, its size and rotation", arguments: FootageTestSupport.sampleInputs.map(\.0)) func passThrough(_ name: String)
        async throws
    {
        let raw = T.sampleInputs.first { $0.0 == name }!.1
        let input = T.sample(name)
        let expectedFrames = try T.decodedFrameCount(input, inputArguments: T.ffprobeInputArguments(raw))
        #expect(expectedFrames > 0)
        let (code, dir, manifest) = try await T.record(["--source", input.path, "--stamp-frame-index"] + raw)
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.stopReason == .endOfStream)
        #expect(m.frames.written == expectedFrames && m.frames.dropped == 0)
        #expect(m.segments.count == 1)
        #expect(m.devices.first?.id == "input")
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.segments.flatMap(\.problems) + report.problems)")
        let probe = try T.probe(dir.appendingPathComponent("segment-000.mp4"))
        let source = try T.probe(input, raw: raw)
        #expect(probe.width == source.width && probe.height == source.height)
        #expect(probe.frames == expectedFrames)
        #expect(probe.rotation == source.rotation)
        if name.hasPrefix("phone") {
            // ffprobe's −90 (counter-clockwise) is a 90° clockwise turn, as camera-model manifests say it.
            #expect(probe.rotation == -90 && m.segments[0].rotationDegrees == 90)
            // Its AAC stereo sound is recorded (Docs/DESIGN.md "Audio", footage), on the input's own audio clock.
            #expect(m.notes.contains { $0.hasPrefix("input stream #1 (audio, aac) recorded as each segment's audio track: aac 48000 Hz, 2 channels") })
            #expect(m.segments[0].audio?.sampleRate == 48_000 && m.segments[0].audio?.channels == 2)
            #expect(m.devices.map(\.id) == ["input", "inputAudio"])
            #expect(m.segments[0].sessionStart == MediaTime(value: 17_000_000, timescale: 1_000_000_000))  // pts 1566/90000
        }
    }

    @Test("through a scenario: the sample is the square sensor image", arguments: FootageTestSupport.sampleInputs.map(\.0)) func scenario(_ name: String)
        async throws
    {
        let raw = T.sampleInputs.first { $0.0 == name }!.1
        let scenarioFile = try T.smallScenario()
        let expected = Int(try CaptureSession(scenario: try Scenario.load(contentsOf: scenarioFile)).frameCount())
        #expect((30...31).contains(expected))
        let (code, dir, manifest) = try await T.record(["--source", T.sample(name).path, "--scenario", scenarioFile.path, "--stamp-frame-index"] + raw)
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == expected && m.frames.written == expected)
        #expect(m.segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x720"])
        #expect(m.devices.first?.id == "front")
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.segments.flatMap(\.problems) + report.problems)")
        var total = 0
        for segment in m.segments {
            let probe = try T.probe(dir.appendingPathComponent(segment.file))
            #expect(probe.width == segment.width && probe.height == segment.height && probe.frames == segment.frameCount)
            #expect(probe.rotation == nil)
            total += probe.frames
        }
        #expect(total == expected)
    }

    @Test("a clip shorter than the scenario loops") func loops() async throws {
        let sensor = try DecodedClipSensor(squareSide: 128, canReopen: true) { try VideoFileDecoder(path: T.sample("park_joy_160x90_50fps.y4m").path) }
        let size = VideoDimensions(width: 128, height: 72)
        let first = try sensor.pixelBuffer(forFrame: 0, dimensions: size)
        #expect(try sensor.pixelBuffer(forFrame: 0, dimensions: size).lumaPlane == first.lumaPlane)
        for i in 1..<10 { _ = try sensor.pixelBuffer(forFrame: Int64(i), dimensions: size) }
        let looped = try sensor.pixelBuffer(forFrame: 10, dimensions: size)
        #expect(sensor.loopCount == 1 && sensor.clipLength == 10)
        #expect(looped.lumaPlane == first.lumaPlane)
    }

    @Test("YUV4MPEG2 through standard input", .enabled(if: FootageTestSupport.segrecExecutable != nil, "segrec executable not built beside the tests"))
    func standardInput() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let input = T.sample("park_joy_160x90_50fps.y4m")
        let (status, _) = try T.run(T.segrecExecutable!, ["record", "--source", "-", "--output", dir.path, "--quiet", "--stamp-frame-index"], stdin: input)
        #expect(status == 0)
        let m = try ManifestReader.read(from: dir)
        #expect(m.frames.written == 10)
        let probe = try T.probe(dir.appendingPathComponent("segment-000.mp4"))
        #expect(probe.width == 160 && probe.height == 90 && probe.frames == 10)
        #expect(try RecordingVerifier.verify(dir).passed)
    }
}

extension FootageTestSupport {
    /// ffprobe of an input, with raw options.
    static func probe(_ file: URL, raw: [String]) throws -> (width: Int, height: Int, frames: Int, rotation: Int?) {
        guard !raw.isEmpty else { return try probe(file) }
        let size = raw[raw.firstIndex(of: "--video-size")! + 1].split(separator: "x").map { Int($0)! }
        return (size[0], size[1], try decodedFrameCount(file, inputArguments: ffprobeInputArguments(raw)), nil)
    }
}
