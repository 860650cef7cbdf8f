import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// A segment's AAC track (Docs/DESIGN.md "Audio"), read back with ffprobe: exactly the
/// samples given (the edit list hides the priming and the last packet's padding), in the
/// fragmented `.partial` file and in the finished one.
@Suite("Media: SegmentWriter audio track", .tags(.media)) struct SegmentWriterAudioTests {
    static let size = VideoDimensions(width: 320, height: 240)

    static func audioStream(_ file: URL) throws -> [String: Any]? {
        let json = try MediaTestSupport.ffprobeJSON(
            ["-select_streams", "a", "-show_entries", "stream=codec_name,profile,sample_rate,channels,time_base,duration_ts"], file: file)
        return (json?["streams"] as? [[String: Any]])?.first
    }

    /// 30 frames at 30 fps and `samples` of a 1 kHz tone; the file's audio lasts exactly `samples`.
    @Test(arguments: [(1000, true), (48_013, true), (48_000, false), (100_000, true), (4_095, false)]) func trackDeclaresExactlyTheSamplesGiven(
        samples: Int, fragmented: Bool
    ) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 15_360, settings: EncoderSettings(),
            fragmentInterval: fragmented ? MediaTime(value: 1, timescale: 4) : nil, audio: AudioTrackSettings(sampleRate: 48_000, channelCount: 2))
        let tone = SyntheticAudioSignal(sampleRate: 48_000, channelCount: 2)
        var given = 0
        for i in 0..<30 {
            try writer.append(
                MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTime(value: Int64(i) * 512, timescale: 15_360))
            let chunk = min(samples - given, samples / 30 + 1)
            if chunk > 0 {
                try writer.appendAudio(tone.samples(from: Int64(given), count: chunk, clickOnsets: []))
                given += chunk
            }
        }
        #expect(given == samples)
        #expect(writer.audioSampleCount == Int64(samples))
        if fragmented, samples >= 48_000 {
            // Crash safety: the fragments already cut carry both tracks (the first is cut, with
            // the moov, once both tracks have a packet: not before the encoder's first frame).
            let partial = try #require(try Self.audioStream(writer.partialURL))
            #expect(partial["codec_name"] as? String == "aac")
        }
        _ = try writer.finish(endTime: MediaTime(value: 1, timescale: 1))
        let stream = try #require(try Self.audioStream(url))
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["profile"] as? String == "LC")
        #expect(stream["sample_rate"] as? String == "48000")
        #expect(stream["channels"] as? Int == 2)
        #expect(stream["time_base"] as? String == "1/48000")
        #expect(stream["duration_ts"] as? Int == samples)
        // The video keeps its exact timing beside it.
        let video = try #require(
            (try MediaTestSupport.ffprobeJSON(["-select_streams", "v", "-show_entries", "stream=duration_ts"], file: url)?["streams"] as? [[String: Any]])?
                .first)
        #expect(video["duration_ts"] as? Int == 15_360)
    }

    @Test func movieTimescaleIsExactForBothTracks() {
        #expect(TrackTiming.movieTimescale(videoTimescale: 15_360, audioSampleRate: 48_000) == 384_000)
        #expect(TrackTiming.movieTimescale(videoTimescale: 30_000, audioSampleRate: 44_100) == 4_410_000)
        #expect(TrackTiming.movieTimescale(videoTimescale: 15_360, audioSampleRate: nil) == 15_360)
    }
}
