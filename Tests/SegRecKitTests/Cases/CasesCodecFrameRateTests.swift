import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// HEVC at every frame rate. With a 1 ns track time base, libx265's
/// reordering (up to 6 frames) gave composition offsets above 2²⁸ ticks (0.27 s) at 2–18 fps;
/// FFmpeg's mov demuxer then drops the whole `ctts` ("CTTS invalid"): pts = dts, the key
/// frame lands before the edit list and is discarded, two frames per segment never decode.
/// Each segment now keeps time in its rate's own tick. Recorded through the muxer as the
/// recorder does, 17 stamped frames per rate, both codecs.
@Suite("Cases: every frame rate, HEVC and H.264", .tags(.cases, .media)) struct CasesCodecFrameRateTests {
    static let rates = ["1", "2", "3", "5", "7", "10", "12", "15", "18", "20", "24", "25", "30000/1001", "30", "48", "50", "60000/1001", "60", "90", "120"]

    @Test(arguments: VideoCodec.allCases, rates) func everyFrameDecodesFromAKeyframe(codec: VideoCodec, rateText: String) async throws {
        let rate = try FrameRate(parsing: rateText)
        let timescale = TrackTiming.timescale(for: rate)
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let settings = EncoderSettings(codec: codec, preset: "veryfast", keyframeInterval: 60, frameRate: rate)
        let muxer = SegmentMuxer(
            SegmentMuxer.Configuration(
                output: try OutputDirectory(preparing: dir, force: false), settings: settings, policy: .split, devices: [.host], frameIndexStamp: true))
        let count: Int64 = 17
        // Frame i at round(i / rate) s on the session clock (ns), starting at 1 s.
        func time(_ i: Int64) -> MediaTime {
            let ns = 1_000_000_000 + (Int128(i) * 1_000_000_000 * Int128(rate.denominator) + Int128(rate.numerator) / 2) / Int128(rate.numerator)
            return MediaTime(value: Int64(ns), timescale: 1_000_000_000)
        }
        let events = (0..<count).map { i in
            CaptureOutputEvent.frame(
                VideoFrame(
                    pixelBuffer: MediaTestSupport.stampedFrame(index: Int(i), width: 192, height: 108), index: i, deviceTime: time(i), sessionTime: time(i),
                    duration: time(i + 1) - time(i)))
        }
        let manifest = try await RecordingPipeline(source: ScriptedSource(events), muxer: muxer).run()
        #expect(manifest.segments.map(\.frameCount) == [Int(count)])
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(rateText) fps: \(report.segments.flatMap(\.problems) + report.problems)")
        let url = dir.appendingPathComponent("segment-000.mp4")
        // Our decoder: every frame, in order, the first a keyframe.
        var stamps: [UInt32?] = []
        var firstIsKey = false
        try MediaFileReader(url: url).decodeFrames { frame in
            if stamps.isEmpty { firstIsKey = frame.isKeyframe }
            stamps.append(frame.stampedIndex)
        }
        #expect(firstIsKey)
        #expect(stamps == (0..<UInt32(count)).map { $0 })
        // The file: the rate's tick, every frame one frame period (rounded once).
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.timeBase == (1, timescale))
        let expectedPTS = try (0..<count).map { try (time($0) - time(0)).converted(toTimescale: timescale).value }
        #expect(info.packets.map(\.pts) == expectedPTS)
        // ffprobe: the first packet in file order is a keyframe, none is discarded, every
        // frame decodes, the first presented frame is an I frame at pts 0.
        if FootageTestSupport.tool("ffprobe") != nil {
            let packets = try TimingCases.probePackets(url)
            #expect(packets.first?.flags.hasPrefix("K") == true, "\(rateText) fps: \(packets.first?.flags ?? "")")
            #expect(!packets.contains { $0.flags.contains("D") }, "\(rateText) fps: discarded packets")
            let frames = try TimingCases.probeFrames(url)
            #expect(frames.count == Int(count))
            #expect(frames.first?.isKey == true && frames.first?.pictureType == "I" && frames.first?.pts == 0)
        }
    }

    /// Segments shorter than the encoder's B-frame delay (1, 2 and 3 frames, the case of a
    /// ratio flipped every frame): libx265 3.5 gives their packets uninitialized decode
    /// times (e.g. 803859814218082527), which the mov muxer refused ("pts (0) < dts (…)",
    /// "pts/dts pair unsupported"); ``SegmentWriter`` now repairs them. Run 4 times, as the
    /// garbage differs between runs. Expected shapes: sizes alternate 192x108 / 108x192.
    @Test(arguments: VideoCodec.allCases, ["veryfast", "medium"]) func segmentsShorterThanTheReorderDelay(codec: VideoCodec, preset: String) async throws {
        let lengths = [1, 2, 1, 3, 1, 1, 2, 1]
        for _ in 0..<4 {
            let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
            let settings = EncoderSettings(codec: codec, preset: preset, keyframeInterval: 60, frameRate: try FrameRate(30))
            let muxer = SegmentMuxer(
                SegmentMuxer.Configuration(
                    output: try OutputDirectory(preparing: dir, force: false), settings: settings, policy: .split, devices: [.host], frameIndexStamp: true))
            // Frame i at 1 s + i/30 s (ns, rounded half away from zero).
            func time(_ i: Int) -> MediaTime { MediaTime(value: 1_000_000_000 + (Int64(i) * 1_000_000_000 + 15) / 30, timescale: 1_000_000_000) }
            var events: [CaptureOutputEvent] = []
            var i = 0
            for (k, length) in lengths.enumerated() {
                for _ in 0..<length {
                    let (w, h) = k % 2 == 0 ? (192, 108) : (108, 192)
                    events.append(
                        .frame(
                            VideoFrame(
                                pixelBuffer: MediaTestSupport.stampedFrame(index: i, width: w, height: h), index: Int64(i), deviceTime: time(i),
                                sessionTime: time(i), duration: time(i + 1) - time(i))))
                    i += 1
                }
            }
            let manifest = try await RecordingPipeline(source: ScriptedSource(events), muxer: muxer).run()
            #expect(manifest.stopReason == .endOfStream)
            #expect(manifest.segments.map(\.frameCount) == lengths)
            let report = try RecordingVerifier.verify(dir)
            #expect(report.passed, "\(codec) \(preset): \(report.segments.flatMap(\.problems) + report.problems)")
        }
    }
}
