/// The recording's sound as one continuous stream on the session clock, before it is cut
/// into segments (Docs/DESIGN.md "Audio").
///
/// Output sample `m` (at the microphone's nominal rate `R`) is the sound at session time
/// `τ(m) = origin + m / R`, where `origin` is the first segment's `sessionStart`. The
/// microphone's samples arrive on its own clock (``AudioSampleBuffer``: the session times of
/// a buffer's first sample and of the sample after its last); the stream follows them with
/// libswresample's compensation (``AudioResampler``), never by dropping or repeating
/// samples:
///
/// - before each buffer, the output position its end should reach is computed exactly,
///   `target = (nextSessionTime − origin) · R` (Int128, ns), and compared with where it
///   would land at the nominal rate (`produced + delay + frames`); the difference, rounded
///   to whole samples, is the `swr_set_compensation` delta spread over the buffer. The loop
///   is closed on what libswresample reports, so the error stays within about one sample
///   (≈ 21 µs at 48 kHz) over any length and drift (±1000 ppm).
/// - the first buffer is placed by its first sample's session time: silence fills a start
///   after `origin`, samples before `origin` are not recorded.
///
/// Footage (``AudioBufferPlacement/timestamped(tolerance:)``) is on the session clock
/// already: no compensation; each buffer follows the one before, unless its timestamp's
/// exact position `(sessionTime − origin) · R` lies more than the tolerance from
/// ``produced``: then silence fills the gap, or the overlap is trimmed off the buffer's
/// start (``silenceFilled``, ``samplesTrimmed``), and the buffer starts at its timestamp
/// rounded to a whole sample. A new encoder session's first buffer
/// (``AudioBufferPlacement/spliced(at:tolerance:)``) cuts the sound before at its splice
/// point instead: the old session's tail after it goes, not the new session's head. A
/// splice point announced before its sound (the pictures jumped first) holds the sound from
/// there back until the next buffer says whether it is cut.
///
/// A segment `[S, E)` holds the samples `m` with `S ≤ τ(m) < E`: indices
/// ``sampleIndex(at:)`` of `S` up to that of `E` (`⌈(t − origin) · R⌉`), so adjacent
/// segments share no sample and miss none, and each holds `round((E − S) · R)` samples ± 1.
///
/// Silence is held as a count, never as samples (``AudioPiece/silence(_:)``): a gap the
/// timestamps leave costs no memory however long it is, and is written by the segment's
/// writer in bounded pieces (``SegmentWriter/appendSilence(frameCount:)``) only where a
/// segment's span covers it.
///
/// Not thread-safe: owned by the ``SegmentMuxer`` actor.
final class SessionAudioTimeline {
    /// Nominal sample frames per second of the stream (the microphone's).
    let sampleRate: Int
    /// Channels.
    let channelCount: Int
    /// Session time of output sample 0 (nanoseconds).
    let origin: MediaTime
    /// Output samples produced so far: the index of the next one.
    private(set) var produced: Int64 = 0
    /// Microphone samples received (every buffer, placed or not).
    private(set) var receivedSamples: Int64 = 0
    /// Output samples not yet taken, from index ``taken``: decoded samples and counts of silence.
    private var queue: [AudioPiece] = []
    /// Index of the first sample in ``queue``.
    private(set) var taken: Int64 = 0
    private let resampler: AudioResampler
    /// Output samples the resampler still holds back (the next input sample comes out at ``produced`` + this).
    var resamplerDelay: Int64 { resampler.delay }
    private var started = false
    private var flushed = false
    /// Whether a buffer went through the resampler (a microphone's).
    private var resampled = false
    /// Output samples of silence put in for gaps in footage timestamps.
    private(set) var silenceFilled: Int64 = 0
    /// Footage samples trimmed where timestamps overlapped.
    private(set) var samplesTrimmed: Int64 = 0
    /// Gaps filled and overlaps trimmed in footage timestamps.
    private(set) var corrections = 0
    /// A splice point announced before its sound (a zero-frame
    /// ``AudioBufferPlacement/spliced(at:tolerance:)`` buffer: the pictures jumped first): no
    /// sample from this index on is handed out until the next buffer says whether the sound
    /// before ends there (a spliced one) or goes on (a timestamped one).
    private var spliceHold: Int64?

    /// A stream at `sampleRate` Hz in `channelCount` channels whose sample 0 is at session time `origin`.
    /// - Throws: ``FFmpegError`` from libswresample.
    init(sampleRate: Int, channelCount: Int, origin: MediaTime) throws {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.origin = try origin.converted(toTimescale: MediaClock.host.timescale)
        resampler = try AudioResampler(sampleRate: sampleRate, channelCount: channelCount)
    }

    /// `⌈(t − origin) · R⌉` (t in any timescale): the first output sample at or after session time `t`.
    func sampleIndex(at t: MediaTime) -> Int64 {
        let ns = Int128(MediaClock.host.timescale)
        // (t − origin) · R = (t.value · ns / t.timescale − origin.value) · R / ns, kept exact.
        let numerator = (Int128(t.value) * ns - Int128(origin.value) * Int128(t.timescale)) * Int128(sampleRate)
        let denominator = ns * Int128(t.timescale)
        return Int64(clamping: ExactArithmetic.multiplyDivide(numerator, 1, denominator, rounding: .roundTowardPositiveInfinity) ?? 0)
    }

    /// `(t − origin) · R · 1e9` as an exact integer (output samples, scaled by 1e9), `t` in nanoseconds.
    private func scaledPosition(_ t: MediaTime) throws -> Int128 {
        let ns = try t.converted(toTimescale: MediaClock.host.timescale)
        return (Int128(ns.value) - Int128(origin.value)) * Int128(sampleRate)
    }

    /// Resamples one microphone buffer onto the session clock.
    /// - Throws: ``FFmpegError``, ``MediaTimeError``.
    func append(_ buffer: AudioSampleBuffer) throws {
        receivedSamples += Int64(buffer.frameCount)
        guard !flushed else { return }
        if case .spliced(let splicePoint, _) = buffer.placement, buffer.frameCount == 0 {
            // The pictures' splice point, before the sound says whether it jumps there too.
            spliceHold = max(taken, sampleIndex(at: splicePoint))
            return
        }
        guard buffer.frameCount > 0, buffer.pcm.channelCount == channelCount else { return }
        switch buffer.placement {
        case .timestamped(let tolerance):
            spliceHold = nil
            return try place(buffer, tolerance: tolerance)
        case .spliced(let splicePoint, _): return try splice(buffer, at: splicePoint)
        case .compensated: break
        }
        resampled = true
        let billion = Int128(1_000_000_000)
        var pcm = buffer.pcm
        if !started {
            // Place the first sample: its output position, rounded to a whole sample.
            let first = try scaledPosition(buffer.sessionTime)
            let position = Int64(clamping: ExactArithmetic.multiplyDivide(first, 1, billion, rounding: .roundHalfAwayFromZero) ?? 0)
            if position > 0 {
                appendSilence(position)
            } else if position < 0 {
                // Samples before the recording's start are not recorded.
                let skip = Int(min(-position, Int64(pcm.frameCount)))
                pcm = pcm.frames(skip..<pcm.frameCount)
                guard pcm.frameCount > 0 else { return }
            }
            started = true
        }
        // Where the sample after this buffer must come out, and where it would at the nominal rate.
        let target = try scaledPosition(buffer.nextSessionTime)
        let nominal = Int128(produced) + Int128(resampler.delay) + Int128(pcm.frameCount)
        let delta = ExactArithmetic.multiplyDivide(target - nominal * billion, 1, billion, rounding: .roundHalfAwayFromZero) ?? 0
        // At most 1/8 of the buffer at once (a jump beyond means a broken clock, not drift).
        let limit = Int128(max(1, pcm.frameCount / 8))
        let sampleDelta = Int(max(-limit, min(limit, delta)))
        try resampler.setCompensation(sampleDelta: sampleDelta, distance: pcm.frameCount)
        append(output: try resampler.convert(pcm))
    }

    /// Places a footage buffer by its timestamp (see the type's description).
    /// - Throws: ``MediaTimeError``.
    private func place(_ buffer: AudioSampleBuffer, tolerance: MediaTime) throws {
        let billion = Int128(1_000_000_000)
        let exact = try scaledPosition(buffer.sessionTime)
        let position = Int64(clamping: ExactArithmetic.multiplyDivide(exact, 1, billion, rounding: .roundHalfAwayFromZero) ?? 0)
        let limit = Int128(try tolerance.converted(toTimescale: MediaClock.host.timescale, rounding: .roundTowardZero).value) * Int128(sampleRate)
        var pcm = buffer.pcm
        var start = produced
        if !started || abs(exact - Int128(produced) * billion) > limit {
            if started {
                corrections += 1
                if position > produced { silenceFilled += position - produced } else { samplesTrimmed += min(produced - position, Int64(pcm.frameCount)) }
            }
            start = position
        }
        if start > produced {
            appendSilence(start - produced)
        } else if start < produced {
            // Samples before the recording's start, or already there: not recorded twice.
            let skip = Int(min(produced - start, Int64(pcm.frameCount)))
            pcm = pcm.frames(skip..<pcm.frameCount)
        }
        if pcm.frameCount > 0 { append(output: pcm) }
        // Placed once something is on the timeline (buffers wholly before the origin are not).
        started = produced > 0
    }

    /// Places the first footage buffer of a new encoder session (see
    /// ``AudioBufferPlacement/spliced(at:tolerance:)``): the sound before ends at the splice
    /// point's sample (the first at or after it, as a segment's start), or where a segment already took it, when
    /// that is later; the buffer's samples before that are not recorded and a gap after it
    /// is silence (the source's warning at the jump says so: no correction is counted).
    /// - Throws: ``MediaTimeError``.
    private func splice(_ buffer: AudioSampleBuffer, at splicePoint: MediaTime) throws {
        let billion = Int128(1_000_000_000)
        spliceHold = nil
        let cut = max(taken, sampleIndex(at: splicePoint))
        if cut < produced { truncate(to: cut) } else { appendSilence(cut - produced) }
        let position = Int64(
            clamping: ExactArithmetic.multiplyDivide(try scaledPosition(buffer.sessionTime), 1, billion, rounding: .roundHalfAwayFromZero) ?? 0)
        var pcm = buffer.pcm
        if position < produced {
            let skip = Int(min(produced - position, Int64(pcm.frameCount)))
            pcm = pcm.frames(skip..<pcm.frameCount)
        } else {
            appendSilence(position - produced)
        }
        if pcm.frameCount > 0 { append(output: pcm) }
        started = produced > 0
    }

    /// Drops the samples from `index` on that no segment took yet (`taken ≤ index < produced`).
    private func truncate(to index: Int64) {
        var excess = produced - max(index, taken)
        produced -= max(0, excess)
        while excess > 0, let last = queue.last {
            if last.frameCount <= excess {
                queue.removeLast()
                excess -= last.frameCount
            } else {
                queue[queue.count - 1] = last.split(at: last.frameCount - excess).0
                excess = 0
            }
        }
    }

    /// Drains the resampler (the recording ends): every sample received is now output,
    /// followed by some silence. libswresample's own drain (`swr_convert` without input)
    /// gives back less than its delay while a compensation is running, so silence is pushed
    /// through at the nominal rate first: the held samples come out ahead of it.
    /// - Throws: ``FFmpegError``.
    func flush() throws {
        guard !flushed else { return }
        flushed = true
        // A splice point no sound came after: the sound before still ends there.
        if let hold = spliceHold, hold < produced { truncate(to: hold) }
        spliceHold = nil
        guard started, resampled else { return }
        try resampler.setCompensation(sampleDelta: 0, distance: 1)
        append(output: try resampler.convert(AudioPCMBuffer(silenceOf: Int(max(0, resampler.delay)) + 64, channelCount: channelCount)))
        append(output: try resampler.flush())
    }

    private func append(output pcm: AudioPCMBuffer) {
        guard pcm.frameCount > 0 else { return }
        queue.append(.samples(pcm))
        produced += Int64(pcm.frameCount)
    }

    /// `count` output samples of silence, held as a count.
    private func appendSilence(_ count: Int64) {
        guard count > 0 else { return }
        queue.append(.silence(count))
        produced += count
    }

    /// Takes the samples from ``taken`` up to `end` (exclusive) out of the stream, as
    /// decoded samples and counts of silence (never more memory than the samples decoded);
    /// samples not produced (yet) are silence when `padding`, else left for later.
    func takePieces(upTo end: Int64, padding: Bool) -> [AudioPiece] {
        let limit = padding ? end : min(end, produced, spliceHold ?? end)
        guard limit > taken else { return [] }
        var pieces: [AudioPiece] = []
        var wanted = min(limit, produced) - taken
        while wanted > 0, let first = queue.first {
            let (head, rest) = first.split(at: wanted)
            pieces.append(head)
            wanted -= head.frameCount
            if let rest { queue[0] = rest } else { queue.removeFirst() }
        }
        if limit > produced {
            pieces.append(.silence(limit - max(produced, taken)))
            // Silence given out in place of samples not produced: later ones follow it.
            produced = limit
        }
        taken = limit
        return pieces
    }

    /// ``takePieces(upTo:padding:)`` as one buffer (silence written out): for tests and short spans.
    func take(upTo end: Int64, padding: Bool) -> AudioPCMBuffer {
        var samples: [Float] = []
        for piece in takePieces(upTo: end, padding: padding) {
            switch piece {
            case .samples(let pcm): samples += pcm.samples
            case .silence(let count): samples += [Float](repeating: 0, count: Int(count) * channelCount)
            }
        }
        return AudioPCMBuffer(channelCount: channelCount, samples: samples)
    }

    /// Skips the samples up to `end` (before a segment's start, or after a stop): not recorded.
    func discard(upTo end: Int64) {
        var count = max(0, min(end, produced) - taken)
        taken += count
        while count > 0, let first = queue.first {
            let (head, rest) = first.split(at: count)
            count -= head.frameCount
            if let rest { queue[0] = rest } else { queue.removeFirst() }
        }
    }

    /// Skips to `index` even where nothing was produced yet (a closed segment's start the
    /// sound never reached): the samples before it are not recorded, later ones follow it.
    func skip(to index: Int64) {
        discard(upTo: index)
        if index > taken {
            produced = max(produced, index)
            taken = index
        }
    }
}

/// A stretch of the session's sound: decoded samples, or a count of silent sample frames.
enum AudioPiece {
    case samples(AudioPCMBuffer)
    case silence(Int64)

    /// Sample frames in the piece.
    var frameCount: Int64 {
        switch self {
        case .samples(let pcm): Int64(pcm.frameCount)
        case .silence(let count): count
        }
    }

    /// The first `count` frames, and the rest (nil when none is left).
    func split(at count: Int64) -> (AudioPiece, AudioPiece?) {
        guard count < frameCount else { return (self, nil) }
        switch self {
        case .samples(let pcm):
            let n = Int(count)
            return (.samples(pcm.frames(0..<n)), .samples(pcm.frames(n..<pcm.frameCount)))
        case .silence(let total): return (.silence(count), .silence(total - count))
        }
    }
}
