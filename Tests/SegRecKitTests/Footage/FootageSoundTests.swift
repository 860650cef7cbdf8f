import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Footage sound that AAC cannot take as it is (Docs/footage.md "Sound"): a rate AAC has no
/// table for is resampled to 48 000 Hz, more than two channels are mixed down to stereo, and
/// the tracks still hold exactly their segments' spans.
@Suite(
    "Footage: sound converted for AAC", .tags(.footage), .serialized,
    .enabled(if: FootageTestSupport.ready, "../shared/samples/ or ffmpeg/ffprobe missing: real-footage tests skipped")) struct FootageSoundTests
{
    typealias T = FootageTestSupport

    @Test("six channels of PCM at 37 800 Hz become stereo AAC at 48 000 Hz, to the sample") func resampledAndMixedDown() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let input = dir.appendingPathComponent("surround.mkv")
        try T.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:d=2", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=37800:duration=2", "-ac", "6",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", input.path
        ])
        let decoder = try VideoFileDecoder(path: input.path, decodesAudio: true)
        let audio = try #require(decoder.audio)
        #expect(audio.sourceSampleRate == 37_800 && audio.sourceChannelCount == 6 && audio.sampleRate == 48_000 && audio.channelCount == 2)
        let (code, out, manifest) = try await T.record(["--source", input.path])
        #expect(code == 0)
        let m = try #require(manifest)
        let segment = try #require(m.segments.first)
        let record = try #require(segment.audio)
        #expect(record.sampleRate == 48_000 && record.channels == 2)
        let span = try segment.sessionEnd.subtracting(segment.sessionStart).converted(toTimescale: 48_000)
        #expect(abs(record.sampleCount - span.value) <= 1)
        #expect(m.notes.contains { $0.contains("pcm_s16le 37800 Hz, 6 channels → AAC-LC 48000 Hz, 2 channels (resampled") && $0.contains("mixed down") })
        // The resampler's delay is accounted for: the tone starts with the pictures, no silence first.
        let track = try #require(try AudioTrackReader.read(out.appendingPathComponent(segment.file)))
        #expect(track.declaredSampleCount == record.sampleCount)
        let head = track.samples[480..<960].map { abs($0) }.max() ?? 0
        #expect(head > 0.05, "the first 20 ms after 10 ms hold the tone (peak \(head))")
        #expect(try RecordingVerifier.verify(out).passed)
    }
}
