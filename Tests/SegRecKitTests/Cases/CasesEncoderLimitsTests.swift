import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Encoder limits: H.264 records every even size from 2x2; HEVC every
/// size from 16x16 (libx265's minimum) and refuses a smaller one with a named limit; no size
/// reaches libx265's CU-tree bug below 50 px wide (heap corruption at 34x18, 36x20, 40x24).
@Suite("Cases: encoder size limits", .tags(.cases, .media)) struct CasesEncoderLimitsTests {
    static let widths = [2, 4, 6, 8, 14, 16, 18, 22, 32, 34, 36, 40, 46, 48, 50, 52, 64, 66, 80]
    static let heights = [2, 4, 8, 14, 16, 18, 20, 24, 34, 48, 64, 80]

    /// Frame `index`: stamped when at least 32x16 (the stamp's minimum), else a moving ramp.
    static func picture(_ index: Int, _ width: Int, _ height: Int) -> PixelBuffer {
        if width >= 32 && height >= 16 { return MediaTestSupport.stampedFrame(index: index, width: width, height: height) }
        let luma = (0..<(width * height)).map { UInt8(16 + ($0 * 7 + index * 13) % 219) }
        return PixelBuffer(
            width: width, height: height, lumaPlane: luma, lumaBytesPerRow: width, chromaPlane: [UInt8](repeating: 128, count: width * (height / 2)),
            chromaBytesPerRow: width)
    }

    @Test func limitsAreTheEncodersOwn() {
        #expect(VideoCodec.h264.minimumDimensions == VideoDimensions(width: 2, height: 2))
        #expect(VideoCodec.hevc.minimumDimensions == VideoDimensions(width: 16, height: 16))
        #expect(VideoCodec.x265Parameters(for: VideoDimensions(width: 48, height: 320)) == "log-level=error:open-gop=0:cutree=0")
        #expect(VideoCodec.x265Parameters(for: VideoDimensions(width: 50, height: 18)) == "log-level=error:open-gop=0")
    }

    /// Every width × height of the sweep, both codecs (3 frames each, stamped with their
    /// index where the picture is wide enough): either a file whose frames decode (our
    /// decoder: count, size, order) or, for HEVC below 16x16 only, `pictureTooSmall` naming
    /// the limit, with no file left behind.
    @Test(arguments: VideoCodec.allCases, widths) func sweep(codec: VideoCodec, width: Int) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for height in Self.heights {
            let size = VideoDimensions(width: width, height: height)
            let url = directory.appendingPathComponent("\(codec)-\(width)x\(height).mp4")
            let settings = EncoderSettings(codec: codec, preset: "veryfast", keyframeInterval: 60)
            let tooSmall = width < codec.minimumDimensions.width || height < codec.minimumDimensions.height
            if tooSmall {
                #expect(throws: SegmentWriterError.pictureTooSmall(path: url.path, dimensions: size, codec: codec)) {
                    _ = try SegmentWriter(url: url, dimensions: size, timescale: 15_360, settings: settings)
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
                continue
            }
            let writer = try SegmentWriter(url: url, dimensions: size, timescale: 15_360, settings: settings)
            for i in 0..<3 { try writer.append(Self.picture(i, width, height), presentationTime: MediaTime(value: Int64(i) * 512, timescale: 15_360)) }
            let summary = try writer.finish(endTime: MediaTime(value: 1536, timescale: 15_360))
            #expect(summary.frameCount == 3)
            var decoded = 0
            var stamps: [UInt32?] = []
            try MediaFileReader(url: url).decodeFrames { frame in
                #expect(frame.width == width && frame.height == height, "\(codec) \(width)x\(height)")
                if decoded == 0 { #expect(frame.isKeyframe, "\(codec) \(width)x\(height)") }
                decoded += 1
                stamps.append(width >= 64 && height >= 16 ? frame.stampedIndex : 0)
            }
            #expect(decoded == 3, "\(codec) \(width)x\(height)")
            if width >= 64 && height >= 16 { #expect(stamps == [0, 1, 2], "\(codec) \(width)x\(height)") }
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The sizes from the reports, read back by ffprobe too (HEVC tagged hvc1, 3 frames).
    @Test(arguments: [(34, 18), (36, 20), (40, 24), (16, 16), (48, 200)]) func reportedHEVCSizesPlay(width: Int, height: Int) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("hevc.mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: VideoDimensions(width: width, height: height), timescale: 15_360, settings: EncoderSettings(codec: .hevc))
        for i in 0..<20 { try writer.append(Self.picture(i, width, height), presentationTime: MediaTime(value: Int64(i) * 512, timescale: 15_360)) }
        _ = try writer.finish(endTime: MediaTime(value: 20 * 512, timescale: 15_360))
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.codecTag == "hvc1" && info.frameCount == 20)
        if FootageTestSupport.tool("ffprobe") != nil {
            let probe = try TimingCases.probeStream(url)
            #expect(probe.frames == 20 && probe.width == width && probe.height == height)
        }
    }

    /// The case files through `segrec record --codec hevc`: 34x18 records its 5 frames;
    /// 2x2 exits 65 naming the limit, the manifest says `error`, no segment; H.264 takes 2x2.
    @Test(.enabled(if: TimingCases.ready, "../shared/cases/ or ffmpeg/ffprobe missing")) func caseFiles() async throws {
        let (code, dir, manifest) = try await TimingCases.record(["--source", TimingCases.file("p08_hevc_crash_34x18.y4m").path, "--codec", "hevc"])
        #expect(code == 0)
        #expect(manifest?.segments.map(\.frameCount) == [5])
        let probe = try TimingCases.probeStream(dir.appendingPathComponent("segment-000.mp4"))
        #expect(probe.frames == 5 && probe.width == 34 && probe.height == 18)
        #expect(try RecordingVerifier.verify(dir).passed)

        let tiny = TimingCases.file("p08_hevc_open_fails_2x2.y4m")
        let (refused, refusedDir, refusedManifest) = try await TimingCases.record(["--source", tiny.path, "--codec", "hevc"])
        #expect(refused == 65)
        #expect(refusedManifest?.stopReason == .error)
        #expect(refusedManifest?.segments.isEmpty == true)
        #expect(
            refusedManifest?.error?.contains("HEVC (libx265) needs pictures of at least 16x16; the pictures are 2x2") == true,
            "\(refusedManifest?.error ?? "no error")")
        #expect(!FileManager.default.fileExists(atPath: refusedDir.appendingPathComponent("segment-000.mp4.partial").path))
        let error = ErrorMapping.commandLineError(
            SegmentWriterError.pictureTooSmall(path: "/x/segment-000.mp4", dimensions: VideoDimensions(width: 2, height: 2), codec: .hevc))
        #expect(error.exitCode == .dataError)
        #expect(
            error.message
                == "segment-000.mp4: HEVC (libx265) needs pictures of at least 16x16; the pictures are 2x2 (use --codec h264, which takes any even size from 2x2)"
        )

        let (h264, h264Dir, h264Manifest) = try await TimingCases.record(["--source", tiny.path, "--codec", "h264"])
        #expect(h264 == 0)
        let frames = try #require(h264Manifest?.frames.written)
        #expect(frames > 0)
        let small = try TimingCases.probeStream(h264Dir.appendingPathComponent("segment-000.mp4"))
        #expect(small.frames == frames && small.width == 2 && small.height == 2)
    }
}
