import Foundation

/// Places a footage file's decoded sound on the session clock, the way its video frames are
/// placed (``FilePassThroughSource``): the audio stream's time base is the device clock
/// ``clock`` (`"inputAudio"`: timescale = the time base's denominator, no offset, no drift),
/// and a sample's session time is `convertTime(pts, inputAudio → host)`, as a frame's is
/// `convertTime(pts, input → host)`. Both clocks count seconds from the file's own zero, so
/// sound and pictures keep the sync the file gives them.
///
/// Each ``DecodedAudio`` becomes one ``AudioSampleBuffer`` placed
/// ``AudioBufferPlacement/timestamped(tolerance:)`` with a tolerance of 1 ms plus one tick
/// of the time base (the timestamps' own rounding: Matroska's and FLV's millisecond), so a
/// gap or overlap beyond it is filled with silence or trimmed by the recorder. Samples
/// without a timestamp follow the ones before. In a container whose timestamps may jump
/// (`AVFMT_TS_DISCONT`: MPEG-TS, HLS), a jump back by more than 0.1 s or ahead by more than
/// 10 s from where the sound would continue is a discontinuity, as for the frames: the
/// sound continues where it was, with one warning per jump, unless the source reports its
/// pictures' jumps (``followsPictureDiscontinuities``: passed-through footage). Then the
/// new encoder session's sound (`cat a.ts b.ts`) takes the offset its pictures got and
/// begins at the splice point, the session time of their first picture, where the sound
/// before ends (``take(_:)``, ``picturesJumped(offsetNanoseconds:splicePoint:)``,
/// ``AudioBufferPlacement/spliced(at:tolerance:)``). So is, in any container, a new
/// sequence header in band (`DecodedAudio/startsNewSequence`: an FLV/RTMP push whose
/// encoder started again) whose time lies before where the sound continues (by more than
/// the tolerance) or more than 10 s after it. Elsewhere a packet whose time lies more than
/// ``jumpLimitSeconds`` (60 s) ahead of or behind where the sound continues is a damaged timestamp
/// (an FLV tag's 0xFFFFFFFF, a Matroska cluster hours ahead): it is placed where the sound
/// continues, the offset unchanged, so an isolated one and a lasting jump both keep the
/// sound going and no gap is ever filled that long (``damagedTimestamps``, one warning per
/// run of them).
///
/// Not thread-safe: owned by its source.
package struct FootageAudioTiming {
    /// The audio stream's clock (the manifest's `devices` entry `inputAudio`).
    package let clock: MediaClock
    /// Output sample frames per second.
    package let sampleRate: Int
    /// How far a timestamp may lie from where the sound continues before it is a gap or an
    /// overlap: 1 ms plus one tick of the time base, rounded up to a nanosecond.
    package let tolerance: MediaTime
    /// Whether the container allows timestamp discontinuities.
    package let allowsDiscontinuities: Bool
    /// The farthest a timestamp may lie ahead of where the sound continues, in a container
    /// without timestamp discontinuities, before it is taken as damaged: 60 s, as for the
    /// pictures (`FilePassThroughSource.jumpLimitSeconds`).
    package static let jumpLimitSeconds: Int64 = 60
    /// Packets whose timestamp was taken as damaged (more than ``jumpLimitSeconds`` ahead or back).
    package private(set) var damagedTimestamps = 0
    /// Whether the last packet's timestamp was taken as damaged (a run of them goes on).
    private var inDamagedRun = false
    /// Sample frames handed out so far.
    package private(set) var samplesDelivered: Int64 = 0
    /// Nanoseconds added to the stream's timestamps since its last discontinuity.
    private var offsetNanoseconds: Int128 = 0
    /// Session time (ns) where the next sample continues the sound so far.
    private var continuation: Int128?
    /// Session time (ns) where the sound so far ends, nil before any.
    package var soundEnd: Int128? { continuation }
    private let timeBase: (num: Int32, den: Int32)

    /// The clock id of a footage file's audio stream in the manifest's `devices`.
    package static let clockID = "inputAudio"

    /// Timing for a stream of time base `timeBase` decoded at `sampleRate` Hz.
    /// - Throws: ``CaptureError/time(_:)`` for a time base the clock model rejects.
    package init(timeBase: (num: Int32, den: Int32), sampleRate: Int, allowsDiscontinuities: Bool) throws(CaptureError) {
        do { clock = try MediaClock(identifier: Self.clockID, timescale: timeBase.den, offsetNanoseconds: 0, driftPartsPerBillion: 0) } catch {
            throw .time(error)
        }
        self.timeBase = timeBase
        self.sampleRate = sampleRate
        self.allowsDiscontinuities = allowsDiscontinuities
        let tick = (Int128(timeBase.num) * 1_000_000_000 + Int128(timeBase.den) - 1) / Int128(max(1, timeBase.den))
        tolerance = MediaTime(value: Int64(clamping: 1_000_000 + tick), timescale: MediaClock.host.timescale)
    }

    /// A live source's new connection: its sound's timestamps (its own timeline) are
    /// placed `offsetNanoseconds` later on the session clock, as its pictures are; the
    /// first buffer (``DecodedAudio/startsNewConnection``) starts there, not where the sound
    /// before left off (the recorder fills the outage with silence).
    package mutating func startNewConnection(offsetNanoseconds: Int128) { nextConnectionOffset = offsetNanoseconds }

    /// The offset of a new connection's sound, taken by its first buffer (the sound of the
    /// connection before may still come first).
    private var nextConnectionOffset: Int128?

    /// `audio` as an ``AudioSampleBuffer`` on the session clock, with the warning of a
    /// discontinuity it starts (nil when none).
    package mutating func buffer(for audio: DecodedAudio) -> (AudioSampleBuffer, warning: String?) {
        let billion = Int128(1_000_000_000)
        var warning: String?
        var start: Int128
        if audio.startsNewConnection, let offset = nextConnectionOffset {
            offsetNanoseconds = offset
            nextConnectionOffset = nil
            inDamagedRun = false
        }
        if let pts = audio.pts {
            start = ownStart(pts: pts, audio) + offsetNanoseconds
            let slack = Int128(tolerance.value)
            if audio.startsNewConnection {
                // A new connection's own timeline, placed by startNewConnection(offsetNanoseconds:).
            } else if let expected = continuation,
                allowsDiscontinuities && (start < expected - billion / 10 || start > expected + 10 * billion)
                    || audio.startsNewSequence && (start < expected - slack || start > expected + 10 * billion)
            {
                offsetNanoseconds += expected - start
                warning =
                    "input audio timestamps jump at sample \(samplesDelivered) from \(Self.seconds(expected)) s to \(Self.seconds(start)) s "
                    + (audio.startsNewSequence
                        ? "(a restart at a new sequence header: the stream's encoder started again)" : "(a discontinuity, allowed in this container)")
                    + ": the sound continues where it was"
                start = expected
            } else if let expected = continuation, !allowsDiscontinuities, abs(start - expected) > Int128(Self.jumpLimitSeconds) * billion {
                damagedTimestamps += 1
                if !inDamagedRun {
                    warning =
                        "input audio timestamp at sample \(samplesDelivered) jumps from \(Self.seconds(expected)) s to \(Self.seconds(start)) s, "
                        + "more than \(Self.jumpLimitSeconds) s \(start > expected ? "ahead of" : "before") where the sound continues: a damaged timestamp, the sound continues where it was "
                        + "(no silence filled in for the jump)"
                }
                inDamagedRun = true
                start = expected
            } else {
                inDamagedRun = false
            }
        } else {
            start = continuation ?? 0
        }
        return (made(audio, start: start, placement: .timestamped(tolerance: tolerance)), warning)
    }

    /// `audio` as a buffer starting at session time `start` (ns): the sound continues after it.
    private mutating func made(_ audio: DecodedAudio, start: Int128, placement: AudioBufferPlacement) -> AudioSampleBuffer {
        channelCount = audio.pcm.channelCount
        let end = start + Self.rounded(Int128(audio.pcm.frameCount) * 1_000_000_000, Int128(sampleRate))
        continuation = end
        let deviceTicks = audio.pts.map { Int64(clamping: Int128($0) * Int128(timeBase.num)) } ?? 0
        let buffer = AudioSampleBuffer(
            firstSampleIndex: samplesDelivered, deviceTime: MediaTime(value: deviceTicks, timescale: clock.timescale),
            sessionTime: MediaTime(value: Int64(clamping: start), timescale: MediaClock.host.timescale),
            nextSessionTime: MediaTime(value: Int64(clamping: end), timescale: MediaClock.host.timescale), sampleRate: sampleRate, pcm: audio.pcm,
            placement: placement)
        samplesDelivered += Int64(audio.pcm.frameCount)
        return buffer
    }

    /// `pts · num / den` seconds, less the conversion's delay, in ns (rounded once), before any offset.
    private func ownStart(pts: Int64, _ audio: DecodedAudio) -> Int128 {
        let billion = Int128(1_000_000_000)
        let rate = Int128(sampleRate)
        let exact = Int128(pts) * Int128(timeBase.num) * billion * rate - Int128(audio.samplesBeforePTS) * billion * Int128(timeBase.den)
        return Self.rounded(exact, Int128(timeBase.den) * rate)
    }

    // MARK: Splices at the pictures' discontinuities

    /// Whether a jump of the sound in a container that allows discontinuities (MPEG-TS,
    /// HLS: joined encoder sessions) takes the pictures' offset
    /// (``picturesJumped(offsetNanoseconds:splicePoint:)``) instead of continuing where the
    /// sound was; set by a source that reports its pictures' jumps. Buffers go in through
    /// ``take(_:)`` then.
    package var followsPictureDiscontinuities = false
    /// The pictures' last jump the sound has not matched yet: their offset and the splice point (ns).
    private var pictureSplice: (offset: Int128, at: Int128)?
    /// Buffers from the sound's own jump on, held until the pictures' jump gives the offset.
    private var held: [DecodedAudio] = []
    /// Sample frames in ``held``.
    private var heldFrames = 0
    /// Channels of the last buffer handed out.
    private var channelCount: Int?
    /// The most sound held for the pictures' jump before it is placed without it (continuing
    /// where the sound was, the rule of a jump without pictures): 5 s, far more than a
    /// decoder's delay of pictures and a muxer's interleaving (≤ 1 s).
    package static let holdLimitSeconds = 5
    /// How far from the splice point a new session's sound may start, placed by the
    /// pictures' offset, for that offset to be taken (else the sound continues where it
    /// was): 1 s.
    package static let spliceReachSeconds = 1

    /// `audio` placed on the session clock, as ``buffer(for:)``, except at a discontinuity
    /// when ``followsPictureDiscontinuities``: the new encoder session's sound is placed by
    /// its own timestamps plus the offset its pictures got, its first buffer
    /// ``AudioBufferPlacement/spliced(at:tolerance:)`` at the new pictures' first time. When
    /// the sound jumps before its pictures do (a decoder delays pictures), the buffers from
    /// the jump on are held (returns none) until ``picturesJumped(offsetNanoseconds:splicePoint:)``,
    /// at most ``holdLimitSeconds`` of sound; then, or at ``releaseHeld()``, they continue
    /// where the sound was.
    package mutating func take(_ audio: DecodedAudio) -> [(AudioSampleBuffer, warning: String?)] {
        if !held.isEmpty {
            if audio.startsNewConnection { return releaseHeld() + [buffer(for: audio)] }
            held.append(audio)
            heldFrames += audio.pcm.frameCount
            return heldFrames > Self.holdLimitSeconds * sampleRate ? releaseHeld() : []
        }
        let billion = Int128(1_000_000_000)
        guard followsPictureDiscontinuities, allowsDiscontinuities, !audio.startsNewConnection, !audio.startsNewSequence, let pts = audio.pts,
            let expected = continuation
        else { return [buffer(for: audio)] }
        let start = ownStart(pts: pts, audio) + offsetNanoseconds
        // The first timestamp after the pictures' jump says whether the sound jumps there too.
        let splice = pictureSplice
        pictureSplice = nil
        guard start < expected - billion / 10 || start > expected + 10 * billion else { return [buffer(for: audio)] }
        if let splice, reaches(splice, audio) { return [spliced(audio, splice)] }
        held = [audio]
        heldFrames = audio.pcm.frameCount
        return []
    }

    /// The pictures jumped (a discontinuity): the frames after it are placed
    /// `offsetNanoseconds` from their own times, the first at session time `splicePoint`
    /// (ns). Returns the held buffers, the first spliced there when its time with that offset
    /// lies within ``spliceReachSeconds`` of it, else continuing where the sound was. With
    /// none held, the jump waits for the sound's next timestamp, and a buffer without samples
    /// announces the splice point to the recorder (it hands out no sound past it until the
    /// next buffer: the sound before may end there).
    package mutating func picturesJumped(offsetNanoseconds offset: Int128, splicePoint: Int128) -> [(AudioSampleBuffer, warning: String?)] {
        let splice = (offset: offset, at: splicePoint)
        guard let first = held.first else {
            pictureSplice = splice
            guard continuation != nil, let channels = channelCount else { return [] }
            let point = MediaTime(value: Int64(clamping: splicePoint), timescale: MediaClock.host.timescale)
            let announcement = AudioSampleBuffer(
                firstSampleIndex: samplesDelivered, deviceTime: MediaTime(value: 0, timescale: clock.timescale), sessionTime: point, nextSessionTime: point,
                sampleRate: sampleRate, pcm: AudioPCMBuffer(channelCount: channels, samples: []), placement: .spliced(at: point, tolerance: tolerance))
            return [(announcement, nil)]
        }
        guard reaches(splice, first) else { return releaseHeld() }
        let rest = held.dropFirst()
        held = []
        heldFrames = 0
        return [spliced(first, splice)] + rest.map { buffer(for: $0) }
    }

    /// The held buffers (the input ended, or a new connection came before the pictures
    /// jumped), placed where the sound was: the rule of a jump without pictures.
    package mutating func releaseHeld() -> [(AudioSampleBuffer, warning: String?)] {
        let waiting = held
        held = []
        heldFrames = 0
        return waiting.map { buffer(for: $0) }
    }

    /// Whether `audio`'s own time plus the pictures' offset lies within ``spliceReachSeconds`` of the splice point.
    private func reaches(_ splice: (offset: Int128, at: Int128), _ audio: DecodedAudio) -> Bool {
        guard let pts = audio.pts else { return false }
        return abs(ownStart(pts: pts, audio) + splice.offset - splice.at) <= Int128(Self.spliceReachSeconds) * 1_000_000_000
    }

    /// The first buffer of a new encoder session, placed by the pictures' offset and spliced
    /// at their first time, with the warning of the jump.
    private mutating func spliced(_ audio: DecodedAudio, _ splice: (offset: Int128, at: Int128)) -> (AudioSampleBuffer, warning: String?) {
        let own = ownStart(pts: audio.pts ?? 0, audio)
        let expected = continuation ?? 0
        let warning =
            "input audio timestamps jump at sample \(samplesDelivered) from \(Self.seconds(expected)) s to \(Self.seconds(own + offsetNanoseconds)) s "
            + "(a discontinuity, allowed in this container): the new sound keeps its own times with the pictures' offset (from \(Self.seconds(own + splice.offset)) s); "
            + "the sound before ends and the new sound begins at \(Self.seconds(splice.at)) s, where the new pictures begin"
        offsetNanoseconds = splice.offset
        inDamagedRun = false
        let point = MediaTime(value: Int64(clamping: splice.at), timescale: MediaClock.host.timescale)
        return (made(audio, start: own + splice.offset, placement: .spliced(at: point, tolerance: tolerance)), warning)
    }

    /// `numerator / denominator` rounded half away from zero (denominator > 0).
    private static func rounded(_ numerator: Int128, _ denominator: Int128) -> Int128 {
        let half = denominator / 2
        return numerator >= 0 ? (numerator + half) / denominator : -((-numerator + half) / denominator)
    }

    private static func seconds(_ ns: Int128) -> String { String(format: "%.6f", Double(ns) / 1e9) }
}
