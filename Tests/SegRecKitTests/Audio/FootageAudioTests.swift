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

/// A joined encoder session's sound (MPEG-TS `cat a.ts b.ts`) takes its pictures' offset and
/// begins where they begin (Docs/footage.md "Sound").
@Suite(.tags(.footage)) struct FootageAudioSpliceTests {
    static let ns = Int128(1_000_000_000)
    static func time(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }

    /// TS timing following the pictures, with the old session's sound 1.4 s … 3.4267 s.
    static func timing() throws -> FootageAudioTiming {
        var timing = try FootageAudioTiming(timeBase: (1, 90_000), sampleRate: 48_000, allowsDiscontinuities: true)
        timing.followsPictureDiscontinuities = true
        #expect(timing.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 97_280)).count == 1)
        return timing
    }

    @Test func soundThatJumpsBeforeItsPicturesIsHeldAndPlacedByTheirOffset() throws {
        var timing = try Self.timing()
        #expect(timing.soundEnd == 3_426_666_667)
        // The new session's sound (its own 1.4 s on) comes before its pictures: held.
        #expect(timing.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 1024, value: 2)).isEmpty)
        #expect(timing.take(FootageAudioTimingTests.decoded(pts: 127_920, count: 1024, value: 3)).isEmpty)
        // The pictures jump: offset 2 s, the new pictures begin at 3.421333 s.
        let placed = timing.picturesJumped(offsetNanoseconds: 2 * Self.ns, splicePoint: 3_421_333_333)
        #expect(placed.count == 2)
        #expect(
            placed[0].0.sessionTime == Self.time(3_400_000_000) && placed[0].0.placement == .spliced(at: Self.time(3_421_333_333), tolerance: timing.tolerance))
        #expect(placed[0].warning?.contains("the sound before ends and the new sound begins at 3.421333 s, where the new pictures begin") == true)
        #expect(
            placed[1].0.sessionTime == Self.time(3_421_333_333) && placed[1].0.placement == .timestamped(tolerance: timing.tolerance)
                && placed[1].warning == nil)
        // The offset stays.
        #expect(timing.take(FootageAudioTimingTests.decoded(pts: 129_840, count: 1024))[0].0.sessionTime == Self.time(3_442_666_667))
    }

    @Test func picturesThatJumpFirstPlaceTheSoundWhenItJumps() throws {
        var timing = try Self.timing()
        // A buffer without samples announces the splice point to the recorder.
        let announced = timing.picturesJumped(offsetNanoseconds: 2 * Self.ns, splicePoint: 3_421_333_333)
        #expect(announced.count == 1 && announced[0].0.frameCount == 0 && announced[0].warning == nil)
        #expect(announced[0].0.placement == .spliced(at: Self.time(3_421_333_333), tolerance: timing.tolerance))
        // A buffer without a timestamp follows on and leaves the question open.
        #expect(timing.take(FootageAudioTimingTests.decoded(pts: nil, count: 480))[0].0.placement == .timestamped(tolerance: timing.tolerance))
        let placed = timing.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 1024))
        #expect(placed.count == 1 && placed[0].0.sessionTime == Self.time(3_400_000_000))
        #expect(placed[0].0.placement == .spliced(at: Self.time(3_421_333_333), tolerance: timing.tolerance))
        // Sound whose first timestamp after the pictures' jump follows on did not jump: a later
        // jump of the sound alone does not take that splice.
        var continuous = try Self.timing()
        _ = continuous.picturesJumped(offsetNanoseconds: 2 * Self.ns, splicePoint: 3_421_333_333)
        #expect(continuous.take(FootageAudioTimingTests.decoded(pts: 308_400, count: 1024))[0].0.placement == .timestamped(tolerance: continuous.tolerance))
        #expect(continuous.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 1024)).isEmpty)
    }

    @Test func withoutAPictureJumpWithinReachTheSoundContinuesWhereItWas() throws {
        // The pictures' offset would put the sound 5 s from their splice point: not taken.
        var far = try Self.timing()
        _ = far.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 1024))
        let released = far.picturesJumped(offsetNanoseconds: 7 * Self.ns, splicePoint: 3_421_333_333)
        #expect(released.count == 1 && released[0].0.sessionTime == Self.time(3_426_666_667))
        #expect(released[0].warning?.contains("the sound continues where it was") == true)
        // No picture jump within 5 s of held sound: the rule without pictures.
        var alone = try Self.timing()
        #expect(alone.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 48_000 * 5)).isEmpty)
        let placed = alone.take(FootageAudioTimingTests.decoded(pts: nil, count: 1024))
        #expect(placed.count == 2 && placed[0].0.sessionTime == Self.time(3_426_666_667) && placed[0].0.placement == .timestamped(tolerance: alone.tolerance))
        // The end of the input releases what is held.
        var ended = try Self.timing()
        _ = ended.take(FootageAudioTimingTests.decoded(pts: 126_000, count: 1024))
        #expect(ended.releaseHeld().map(\.0.sessionTime) == [Self.time(3_426_666_667)])
        #expect(ended.releaseHeld().isEmpty)
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

    @Test func aSpliceCutsTheOldSoundsTailNotTheNewSoundsHead() throws {
        let timeline = try Self.timeline()
        // The old session's sound runs 1000 … 1030 ms (its padding past the splice at 1020 ms).
        try timeline.append(Self.buffer(at: 1000, count: 1440, value: 1))
        #expect(timeline.take(upTo: 240, padding: false).samples == [Float](repeating: 1, count: 240))
        // The new session's first buffer starts 10 ms before the splice (its priming).
        let splicePoint = MediaTime(value: 1_020_000_000, timescale: 1_000_000_000)
        let start = MediaTime(value: 1_010_000_000, timescale: 1_000_000_000)
        try timeline.append(
            AudioSampleBuffer(
                firstSampleIndex: 0, deviceTime: start, sessionTime: start, nextSessionTime: start, sampleRate: 48_000,
                pcm: AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: 2, count: 960)),
                placement: .spliced(at: splicePoint, tolerance: Self.tolerance)))
        // Then the new sound follows sample for sample.
        try timeline.append(Self.buffer(at: 1030, count: 480, value: 3))
        let pcm = timeline.take(upTo: 1920, padding: false)
        #expect(pcm.samples == [Float](repeating: 1, count: 720) + [Float](repeating: 2, count: 480) + [Float](repeating: 3, count: 480))
        #expect(timeline.corrections == 0 && timeline.produced == 1920)
    }

    @Test func aSpliceAfterTheOldSoundEndsIsSilenceAndNeverCutsWhatASegmentTook() throws {
        let timeline = try Self.timeline()
        try timeline.append(Self.buffer(at: 1000, count: 480, value: 1))  // ends at 1010 ms
        let start = MediaTime(value: 1_015_000_000, timescale: 1_000_000_000)
        try timeline.append(
            AudioSampleBuffer(
                firstSampleIndex: 0, deviceTime: start, sessionTime: start, nextSessionTime: start, sampleRate: 48_000,
                pcm: AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: 2, count: 480)),
                placement: .spliced(at: MediaTime(value: 1_012_000_000, timescale: 1_000_000_000), tolerance: Self.tolerance)))
        #expect(
            timeline.take(upTo: 1200, padding: false).samples == [Float](repeating: 1, count: 480) + [Float](repeating: 0, count: 240)
                + [Float](repeating: 2, count: 480))
        // A segment took the sound up to 30 ms: a splice at 20 ms cuts from there.
        let taken = try Self.timeline()
        try taken.append(Self.buffer(at: 1000, count: 1920, value: 1))
        _ = taken.take(upTo: 1440, padding: false)
        try taken.append(
            AudioSampleBuffer(
                firstSampleIndex: 0, deviceTime: start, sessionTime: start, nextSessionTime: start, sampleRate: 48_000,
                pcm: AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: 2, count: 960)),
                placement: .spliced(at: MediaTime(value: 1_020_000_000, timescale: 1_000_000_000), tolerance: Self.tolerance)))
        // The new buffer (1015 … 1035 ms) keeps its samples from 1030 ms on, at their own time.
        #expect(taken.take(upTo: 1680, padding: false).samples == [Float](repeating: 2, count: 240))
    }

    @Test func aSplicePointAnnouncedBeforeItsSoundHoldsTheSoundPastIt() throws {
        let splicePoint = MediaTime(value: 1_020_000_000, timescale: 1_000_000_000)
        let announcement = AudioSampleBuffer(
            firstSampleIndex: 0, deviceTime: .zero, sessionTime: splicePoint, nextSessionTime: splicePoint, sampleRate: 48_000,
            pcm: AudioPCMBuffer(channelCount: 1, samples: []), placement: .spliced(at: splicePoint, tolerance: Self.tolerance))
        let start = MediaTime(value: 1_010_000_000, timescale: 1_000_000_000)
        let first = AudioSampleBuffer(
            firstSampleIndex: 0, deviceTime: start, sessionTime: start, nextSessionTime: start, sampleRate: 48_000,
            pcm: AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: 2, count: 960)), placement: .spliced(at: splicePoint, tolerance: Self.tolerance))
        // The old sound (1000 … 1030 ms) is held at 1020 ms, whatever a segment asks for, until
        // the new sound comes: then its tail is cut.
        let timeline = try Self.timeline()
        try timeline.append(Self.buffer(at: 1000, count: 1440, value: 1))
        try timeline.append(announcement)
        #expect(timeline.take(upTo: 1440, padding: false).samples == [Float](repeating: 1, count: 960))
        try timeline.append(first)
        #expect(timeline.take(upTo: 1440, padding: false).samples == [Float](repeating: 2, count: 480))
        // Sound that goes on without a jump releases the hold: nothing is cut.
        let going = try Self.timeline()
        try going.append(Self.buffer(at: 1000, count: 1440, value: 1))
        try going.append(announcement)
        #expect(going.take(upTo: 1440, padding: false).frameCount == 960)
        try going.append(Self.buffer(at: 1030, count: 480, value: 3))
        #expect(going.take(upTo: 1920, padding: false).samples == [Float](repeating: 1, count: 480) + [Float](repeating: 3, count: 480))
        // No sound after it: the sound before still ends at the splice point.
        let ended = try Self.timeline()
        try ended.append(Self.buffer(at: 1000, count: 1440, value: 1))
        try ended.append(announcement)
        try ended.flush()
        #expect(ended.produced == 960)
    }
}
