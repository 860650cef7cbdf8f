import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Records camera switches into real files and reads them back (libavcodec and ffprobe):
/// frame indices (rows 0–15) and camera positions (rows 16–31), tiling, change records.
@Suite("Cameras: recording switches", .tags(.cameras)) struct CameraRecordingTests {
    typealias F = DuoFixtures

    static func record(_ json: String, mode: RecordingMode = .segment, mirror: MirrorMode = .off) async throws -> (URL, RecordingManifest) {
        let scenario = try F.scenario(json)
        let pool = PixelBufferPool()
        let session = try CaptureSession(scenario: scenario, mirrorMode: mirror, pixelBufferPool: pool)
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var configuration = SegmentMuxer.Configuration(
            output: try OutputDirectory(preparing: dir, force: false), settings: RecorderTestSupport.settings, policy: SplitPolicy(mode),
            devices: try scenario.makeCameraClocks(), frameIndexStamp: true, pixelBufferPool: pool)
        configuration.recordsSessionEvents = true
        let manifest = try await RecordingPipeline(source: session, muxer: SegmentMuxer(configuration)).run()
        return (dir, manifest)
    }

    /// (frame index, camera code) of every decoded frame of `file`.
    static func stamps(_ file: URL) throws -> [(Int64, Int64)] {
        var out: [(Int64, Int64)] = []
        try MediaFileReader(url: file).decodeFrames { frame in
            let index = FrameIndexStamp.read(luma: frame.luma, width: frame.width, height: frame.height, bytesPerRow: frame.lumaBytesPerRow)
            let camera = FrameIndexStamp.read(
                luma: frame.luma, width: frame.width, height: frame.height, bytesPerRow: frame.lumaBytesPerRow, firstRow: FrameIndexStamp.cameraRow)
            out.append((Int64(index ?? .max), Int64(camera ?? .max)))
        }
        return out
    }

    @Test("segments split at the switch, tile exactly, and the files prove which camera made each frame") func recordSwitch() async throws {
        // T_out(0) = to_host(to_dev(95400 s)): the first outer frame (one rounding each way).
        let sessionStartNs: Int64 = 95_400_000_000_000
        // Values of CameraSwitchBoundaryTests at 26.5 h: outer frames 0…39 9x16, 40…48 16x9
        // (k1 = 40, T_out(40) = 95400333316667), inner from T_in(39) = 95400650014667 at 4x3
        // (D_in(39) = 8585594286 on the inner clock), 9 frames, ending at T_in(48) = 95400800017667.
        let json = F.individual(start: "95400.0", events: CameraSwitchBoundaryTests.events)
        let (dir, manifest) = try await Self.record(json)
        let segments = manifest.segments
        #expect(segments.map(\.frameCount) == [40, 9, 9])
        #expect(segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x720", "1280x960"])
        #expect(segments.map(\.startReason) == [.recordingStarted, .dimensionsChanged, .cameraSwitched])
        #expect(segments.map(\.camera) == ["outer", "outer", "inner"])
        #expect(segments.map(\.facing) == [.user, .user, .user])
        #expect(segments[0].sessionStart == F.t(sessionStartNs))
        #expect(segments[1].sessionStart == F.t(95_400_333_316_667))
        #expect(segments[2].sessionStart == F.t(95_400_650_014_667))
        #expect(segments[2].sessionEnd == F.t(95_400_800_017_667))
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(a.sessionEnd == b.sessionStart) }
        // The late 16x9 completion (after the switch) is attached to its own segment.
        #expect(segments[1].change?.deviceTime == F.t(2_290_022_495_000, 24_000_000))
        #expect(segments[1].change?.announced == true)
        let change = try #require(segments[2].change)
        #expect(change.camera == "inner" && change.previousCamera == "outer")
        #expect(change.deviceTime == F.t(8_585_594_286, 90_000) && change.sessionTime == F.t(95_400_650_014_667))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        #expect(manifest.devices.map(\.id) == ["outer", "inner", "back"])
        let kinds = (manifest.events ?? []).map(\.kind)
        #expect(kinds == [.postureChanged, .facingChanged, .facingChanged, .cameraSwitched])
        // Read back: indices 0…57 in order, camera 0 for 0…48 and camera 1 for 49…57.
        var all: [(Int64, Int64)] = []
        for segment in segments { all += try Self.stamps(dir.appendingPathComponent(segment.file)) }
        #expect(all.map(\.0) == Array(0..<58))
        #expect(all.map(\.1) == Array(repeating: 0, count: 49) + Array(repeating: 1, count: 9))
        // Each camera's file is encoded at its own nominal rate (ffprobe, when installed).
        for (file, rate, frames) in [("segment-000.mp4", "120/1", "40"), ("segment-002.mp4", "60/1", "9")] {
            if let probe = try MediaTestSupport.ffprobeJSON(
                ["-select_streams", "v:0", "-show_entries", "stream=r_frame_rate,nb_frames"], file: dir.appendingPathComponent(file))
            {
                let stream = (probe["streams"] as? [[String: Any]])?.first ?? [:]
                let probed = (stream["r_frame_rate"] as? String, stream["nb_frames"] as? String)
                #expect(probed.0 == rate && probed.1 == frames, "\(file): \(stream)")
            }
        }
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.problems) \(report.segments.map(\.problems))")
        #expect(report.segments.map(\.producers) == [["outer"], ["outer"], ["inner"]])
    }

    @Test("stop-on-change stops at the switch with stopReason cameraSwitched") func stopOnSwitch() async throws {
        let json = F.individual(start: "1.0", events: #"{"atSeconds": 0.4, "posture": "open"}"#)
        let (dir, manifest) = try await Self.record(json, mode: .stopOnChange)
        #expect(manifest.stopReason == .cameraSwitched)
        #expect(manifest.segments.count == 1 && manifest.segments[0].frameCount == 49)
        // The movie file ends where the inner camera's first frame would start: T_in(39).
        #expect(manifest.segments[0].sessionEnd == F.t(1_650_012_445))
        #expect(manifest.frames.received == 58 && manifest.frames.dropped == 9)
        #expect(manifest.frames.droppedReasons == ["recordingStopped": 9])
        #expect(try Self.stamps(dir.appendingPathComponent("segment-000.mp4")).map(\.0) == Array(0..<49))
    }

    @Test("mirroring flips the pixels left-right, the stamp still reads, and no segment starts") func mirroring() throws {
        let json = F.individual(start: "1.0", events: #"{"atSeconds": 0.4, "posture": "open"}"#)
        let plain = F.frames(try F.run(try CaptureSession(scenario: try F.scenario(json))))
        let mirrored = F.frames(try F.run(try CaptureSession(scenario: try F.scenario(json), mirrorMode: .auto)))
        #expect(plain.count == mirrored.count)
        for i in [0, 48, 49, 57] {
            let a = plain[i].pixelBuffer
            let b = mirrored[i].pixelBuffer
            #expect(mirrored[i].camera?.isMirrored == true && plain[i].camera?.isMirrored == false)
            let row = 100
            let w = a.width
            let original = Array(a.lumaPlane[(row * a.lumaBytesPerRow)..<(row * a.lumaBytesPerRow + w)])
            let flipped = Array(b.lumaPlane[(row * b.lumaBytesPerRow)..<(row * b.lumaBytesPerRow + w)])
            #expect(flipped == Array(original.reversed()))
            #expect(FrameIndexStamp.read(b) == UInt32(i))
            #expect(FrameIndexStamp.read(b, firstRow: FrameIndexStamp.cameraRow) == (i < 49 ? 0 : 1))
        }
        // Each camera has its own look: outer and inner pictures of the same size differ in chroma.
        #expect(plain[0].pixelBuffer.chromaPlane != plain[49].pixelBuffer.chromaPlane)
    }
}
