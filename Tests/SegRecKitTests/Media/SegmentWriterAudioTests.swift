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

    /// Silence given as a count (a gap in footage timestamps): 0.5 s of tone, 600 s of
    /// silence, 0.5 s of tone. The track declares every sample; its packets follow one
    /// another 1 024 samples apart (steady silence is the encoder's packet repeated, not
    /// encoded); the tone after the silence decodes where it was given, loud as before; and
    /// the 10 minutes take well under a second (encoding them took ~3 s).
    @Test func silenceAsACountIsEveryPacketInPlace() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("s.mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 15_360, settings: EncoderSettings(), fragmentInterval: MediaTime(value: 1, timescale: 1),
            audio: AudioTrackSettings(sampleRate: 48_000, channelCount: 1))
        let tone = SyntheticAudioSignal(sampleRate: 48_000, channelCount: 1)
        try writer.append(MediaTestSupport.stampedFrame(index: 0, width: 320, height: 240), presentationTime: .zero)
        try writer.appendAudio(tone.samples(from: 0, count: 24_000, clickOnsets: []))
        let started = ContinuousClock.now
        try writer.appendSilence(frameCount: 600 * 48_000)
        #expect(ContinuousClock.now - started < .seconds(1))
        try writer.appendAudio(tone.samples(from: 24_000, count: 24_000, clickOnsets: []))
        let total = 24_000 + 600 * 48_000 + 24_000
        _ = try writer.finish(endTime: MediaTime(value: Int64(total), timescale: 48_000))
        let stream = try #require(try Self.audioStream(url))
        #expect(stream["duration_ts"] as? Int == total)
        let packets = try #require(
            (try MediaTestSupport.ffprobeJSON(["-select_streams", "a", "-show_entries", "packet=pts"], file: url)?["packets"] as? [[String: Any]]))
        let pts = packets.compactMap { $0["pts"] as? Int }
        #expect(pts.count == packets.count && zip(pts, pts.dropFirst()).allSatisfy { $1 - $0 == 1024 })
        // The tone's level in the last 0.4 s, and silence 1 s before it.
        let pcm = try #require(try AudioTrackReader.decode(url)).pcm.samples
        #expect(pcm.count >= total - 1024)
        func rms(_ range: Range<Int>) -> Double { (pcm[range].reduce(0.0) { $0 + Double($1 * $1) } / Double(range.count)).squareRoot() }
        #expect(rms((total - 19_200 - 1024)..<(total - 1024)) > 0.05)
        #expect(rms((total - 72_000)..<(total - 48_000)) < 0.001)
    }

    @Test func movieTimescaleIsExactForBothTracks() {
        #expect(TrackTiming.movieTimescale(videoTimescale: 15_360, audioSampleRate: 48_000) == 384_000)
        #expect(TrackTiming.movieTimescale(videoTimescale: 30_000, audioSampleRate: 44_100) == 4_410_000)
        #expect(TrackTiming.movieTimescale(videoTimescale: 15_360, audioSampleRate: nil) == 15_360)
    }
}

/// `recover` keeps the audio of a `.partial` file's complete fragments, up to the kept
/// video's end (read back with ffprobe).
@Suite("Media: SegmentRecovery keeps audio", .tags(.media, .crashSafety)) struct SegmentRecoveryAudioTests {
    @Test func killedPartialKeepsBothTracks() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try SegmentWriter(
            url: directory.appendingPathComponent("live.mp4"), dimensions: VideoDimensions(width: 320, height: 240), timescale: 15_360,
            settings: EncoderSettings(preset: "ultrafast"), fragmentInterval: MediaTime(value: 1, timescale: 2),
            audio: AudioTrackSettings(sampleRate: 48_000, channelCount: 1))
        let tone = SyntheticAudioSignal(sampleRate: 48_000, channelCount: 1)
        for i in 0..<75 {  // 2.5 s at 30 fps, with its sound as it comes
            try writer.append(
                MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTime(value: Int64(i) * 512, timescale: 15_360))
            try writer.appendAudio(tone.samples(from: Int64(i) * 1600, count: 1600, clickOnsets: [48_000]))
        }
        // kill -9 now: the partial file as it is on disk.
        let partial = directory.appendingPathComponent("cut.mp4.partial")
        try Data(contentsOf: writer.partialURL).write(to: partial)
        writer.cancel()
        let url = directory.appendingPathComponent("cut.mp4")
        let recovered = try SegmentRecovery.recover(partial: partial, to: url)
        let audio = try #require(recovered.audio)
        #expect(audio.sampleRate == 48_000 && audio.channelCount == 1)
        // At least the first second's fragments, never past the video kept.
        let videoEndSamples = recovered.end.value * 48_000 / Int64(recovered.timescale)
        #expect(audio.sampleCount >= 48_000 && audio.sampleCount <= videoEndSamples, "\(audio.sampleCount) vs video end \(videoEndSamples)")
        let stream = try #require(try SegmentWriterAudioTests.audioStream(url))
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["duration_ts"] as? Int == Int(audio.sampleCount))
        // The click at 1 s is where it was: the kept sound is the partial's, from its start.
        let decoded = try #require(try AudioTrackReader.read(url))
        #expect(ClickDetector(sampleRate: 48_000).onsets(in: decoded.samples).map { abs($0 - 48_000) <= 2 } == [true])
    }
}
