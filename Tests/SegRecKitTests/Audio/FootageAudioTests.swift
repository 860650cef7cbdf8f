import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Footage sound on the session clock (Docs/DESIGN.md "Audio", "Footage"): timestamps as
/// the frames get them, gaps filled with silence, overlaps trimmed, discontinuities.
@Suite(.tags(.footage)) struct FootageAudioTimingTests {
    static func decoded(pts: Int64?, count: Int, value: Float = 0.5, delay: Int64 = 0) -> DecodedAudio {
        DecodedAudio(pts: pts, samplesBeforePTS: delay, pcm: AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: value, count: count)))
    }

    @Test func ptsBecomeSessionTimeInSecondsAndTheToleranceIsOneMillisecondAndATick() throws {
        var timing = try FootageAudioTiming(timeBase: (1, 1000), sampleRate: 48_000, allowsDiscontinuities: false)
        #expect(timing.clock.identifier == "inputAudio" && timing.clock.timescale == 1000)
        #expect(timing.tolerance == MediaTime(value: 2_000_000, timescale: 1_000_000_000))
        let (first, warning) = timing.buffer(for: Self.decoded(pts: 1500, count: 960))
        #expect(warning == nil)
        #expect(first.sessionTime == MediaTime(value: 1_500_000_000, timescale: 1_000_000_000))
        #expect(first.nextSessionTime == MediaTime(value: 1_520_000_000, timescale: 1_000_000_000))
        #expect(first.placement == .timestamped(tolerance: timing.tolerance) && !first.isSynthetic)
        // No pts: the samples follow the ones before.
        let (second, _) = timing.buffer(for: Self.decoded(pts: nil, count: 960))
        #expect(second.sessionTime == first.nextSessionTime && second.firstSampleIndex == 960)
        // A rate conversion's delay puts the samples before their frame's pts.
        var sample = try FootageAudioTiming(timeBase: (1, 48_000), sampleRate: 48_000, allowsDiscontinuities: false)
        #expect(sample.tolerance == MediaTime(value: 1_020_834, timescale: 1_000_000_000))
        #expect(sample.buffer(for: Self.decoded(pts: 48_000, count: 10, delay: 48)).0.sessionTime == MediaTime(value: 999_000_000, timescale: 1_000_000_000))
    }

    @Test func aJumpIsADiscontinuityOnlyWhereTheContainerAllowsOne() throws {
        var ts = try FootageAudioTiming(timeBase: (1, 90_000), sampleRate: 48_000, allowsDiscontinuities: true)
        _ = ts.buffer(for: Self.decoded(pts: 900_000, count: 48_000))  // 10 s … 11 s
        let (back, warning) = ts.buffer(for: Self.decoded(pts: 0, count: 480))
        #expect(back.sessionTime == MediaTime(value: 11_000_000_000, timescale: 1_000_000_000))
        #expect(warning?.contains("discontinuity") == true)
        // The offset stays for the samples after the jump.
        #expect(ts.buffer(for: Self.decoded(pts: 900, count: 480)).0.sessionTime == MediaTime(value: 11_010_000_000, timescale: 1_000_000_000))
        // A new sequence header in band (an FLV push whose encoder started again) restarts
        // anywhere; a header whose time follows on is no jump.
        var flv = try FootageAudioTiming(timeBase: (1, 1000), sampleRate: 48_000, allowsDiscontinuities: false)
        _ = flv.buffer(for: Self.decoded(pts: 0, count: 96_000))  // 0 … 2 s
        var restart = Self.decoded(pts: 0, count: 480)
        restart.startsNewSequence = true
        let (restarted, restartWarning) = flv.buffer(for: restart)
        #expect(restarted.sessionTime == MediaTime(value: 2_000_000_000, timescale: 1_000_000_000))
        #expect(restartWarning?.contains("a restart at a new sequence header") == true)
        var onTime = Self.decoded(pts: 10, count: 480)
        onTime.startsNewSequence = true
        let (followed, noJump) = flv.buffer(for: onTime)
        #expect(followed.sessionTime == MediaTime(value: 2_010_000_000, timescale: 1_000_000_000) && noJump == nil)
        var mp4 = try FootageAudioTiming(timeBase: (1, 90_000), sampleRate: 48_000, allowsDiscontinuities: false)
        _ = mp4.buffer(for: Self.decoded(pts: 900_000, count: 48_000))
        let (kept, none) = mp4.buffer(for: Self.decoded(pts: 0, count: 480))
        #expect(kept.sessionTime == .zero && none == nil)
    }
}

/// ``SessionAudioTimeline`` with footage buffers (``AudioBufferPlacement/timestamped(tolerance:)``).
@Suite(.tags(.footage)) struct TimestampedAudioPlacementTests {
    static let tolerance = MediaTime(value: 1_000_000, timescale: 1_000_000_000)

    /// A buffer of `count` samples of `value` at `ms` milliseconds (+ `ns`).
    static func buffer(at ms: Int64, plusNanoseconds ns: Int64 = 0, count: Int, value: Float) -> AudioSampleBuffer {
        let start = MediaTime(value: ms * 1_000_000 + ns, timescale: 1_000_000_000)
        return AudioSampleBuffer(
            firstSampleIndex: 0, deviceTime: start, sessionTime: start, nextSessionTime: start, sampleRate: 48_000,
            pcm: AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: value, count: count)), placement: .timestamped(tolerance: tolerance))
    }

    static func timeline() throws -> SessionAudioTimeline {
        try SessionAudioTimeline(sampleRate: 48_000, channelCount: 1, origin: MediaTime(value: 1, timescale: 1))
    }

    @Test func buffersWithinOneMillisecondFollowOnEachOtherSampleForSample() throws {
        let timeline = try Self.timeline()
        try timeline.append(Self.buffer(at: 1000, count: 480, value: 1))
        // 0.9 ms late and 0.9 ms early: within the tolerance, nothing inserted or lost.
        try timeline.append(Self.buffer(at: 1010, plusNanoseconds: 900_000, count: 480, value: 2))
        try timeline.append(Self.buffer(at: 1020, plusNanoseconds: -900_000, count: 480, value: 3))
        try timeline.flush()
        let pcm = timeline.take(upTo: 1440, padding: false)
        #expect(pcm.samples == [Float](repeating: 1, count: 480) + [Float](repeating: 2, count: 480) + [Float](repeating: 3, count: 480))
        #expect(timeline.corrections == 0 && timeline.produced == 1440)
    }

    @Test func aGapIsSilenceAndAnOverlapIsTrimmed() throws {
        let timeline = try Self.timeline()
        // Starts 10 ms after the origin: silence before it.
        try timeline.append(Self.buffer(at: 1010, count: 480, value: 1))
        // 20 ms → 30 ms missing: 480 samples of silence, then the buffer at its own time.
        try timeline.append(Self.buffer(at: 1030, count: 480, value: 2))
        // Starts 5 ms before the end of the one before: its first 240 samples are trimmed.
        try timeline.append(Self.buffer(at: 1035, count: 480, value: 3))
        let pcm = timeline.take(upTo: 2160, padding: false)
        let expected: [Float] =
            [Float](repeating: 0, count: 480) + [Float](repeating: 1, count: 480) + [Float](repeating: 0, count: 480) + [Float](repeating: 2, count: 480)
            + [Float](repeating: 3, count: 240)
        #expect(pcm.samples == expected)
        #expect(timeline.corrections == 2 && timeline.silenceFilled == 480 && timeline.samplesTrimmed == 240)
    }

    @Test func soundBeforeTheOriginIsNotRecorded() throws {
        let timeline = try Self.timeline()
        try timeline.append(Self.buffer(at: 980, count: 480, value: 1))  // 980 … 990 ms: all before
        try timeline.append(Self.buffer(at: 990, count: 960, value: 2))  // 990 … 1010 ms: half before
        let pcm = timeline.take(upTo: 480, padding: false)
        #expect(pcm.samples == [Float](repeating: 2, count: 480))
        #expect(timeline.corrections == 0 && timeline.receivedSamples == 1440)
    }
}
