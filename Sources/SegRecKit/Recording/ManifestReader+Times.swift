import SegRecMedia
import SegRecTime

/// The checks of the numbers that size work beyond counts (``ManifestReader/checkRanges(_:path:)``):
/// clocks and times, rotations and the encoder's settings, so that no command allocates,
/// loops or traps by a number a manifest claims (issue 44: a `rotationDegrees` of −2^63
/// trapped `report`; a `sessionEnd` at timescale 1 and 2.1e9 s asked it for terabytes).
extension ManifestReader {
    /// The session clock's timescale: nanoseconds, the only one segrec writes.
    static let sessionTimescale: Int32 = 1_000_000_000

    /// The longest a segment may last per frame it holds (and for the first): 2^31 ticks of
    /// the least track timescale segrec writes (10 000 Hz), the longest one frame of a
    /// file can last: 214 748.3648 s.
    static let longestFrame = MediaTime(value: 1 << 31, timescale: 10_000)

    /// The rotations a segment may hold (clockwise degrees).
    static let rotations = [0, 90, 180, 270]

    /// Checks every clock, time, rotation and encoder setting in `manifest`.
    /// - Throws: ``RecordingError/badInput(path:field:detail:)`` naming the field and what
    ///   is allowed, e.g. `segments[0].sessionEnd: 2147483647/1 s lasts 2147483647 s after
    ///   sessionStart, longer than its 120 frames can (…)`.
    static func checkTimes(_ manifest: RecordingManifest, path: String) throws(RecordingError) {
        func fail(_ field: String, _ detail: String) -> RecordingError { .badInput(path: path, field: field, detail: detail) }
        guard manifest.sessionClock.timescale == sessionTimescale else {
            throw fail("sessionClock.timescale", "\(manifest.sessionClock.timescale) is not allowed; allowed: \(sessionTimescale) (nanoseconds)")
        }
        for (i, device) in manifest.devices.enumerated() where device.timescale < 1 {
            throw fail("devices[\(i)].timescale", "\(device.timescale) is not allowed; allowed: 1...\(Int32.max)")
        }
        if let stop = manifest.stopTime { try checkTime(stop, "stopTime", path: path) }
        if let lost = manifest.recovery?.lostAfter { try checkTime(lost, "recovery.lostAfter", path: path) }
        if let limit = manifest.segmentLimits?.maxSegmentDuration { try checkTime(limit, "segmentLimits.maxSegmentDuration", path: path) }
        for (i, event) in (manifest.events ?? []).enumerated() { try checkTime(event.sessionTime, "events[\(i)].sessionTime", path: path) }
        for (i, segment) in manifest.segments.enumerated() {
            let at = "segments[\(i)]"
            try checkTime(segment.sessionStart, "\(at).sessionStart", path: path)
            try checkTime(segment.sessionEnd, "\(at).sessionEnd", path: path)
            if let change = segment.change {
                try checkTime(change.deviceTime, "\(at).change.deviceTime", path: path)
                try checkTime(change.sessionTime, "\(at).change.sessionTime", path: path)
            }
            if let rotation = segment.rotationDegrees, !rotations.contains(rotation) {
                throw fail("\(at).rotationDegrees", "\(rotation) is not allowed; allowed: null, 0, 90, 180, 270 (clockwise degrees)")
            }
            try checkSpan(segment, at, path: path)
            if let framesEnd = segment.framesEnd { try checkFramesEnd(framesEnd, of: segment, at, path: path) }
            if let audio = segment.audio {
                // round(span · rate) + 1 at most: the recorder writes the span's samples ± 1,
                // a rebuilt file what it holds (fewer).
                let span =
                    (Int128(segment.sessionEnd.value) * Int128(segment.sessionStart.timescale) - Int128(segment.sessionStart.value)
                        * Int128(segment.sessionEnd.timescale))
                let scale = Int128(segment.sessionStart.timescale) * Int128(segment.sessionEnd.timescale)
                let most = (span * Int128(audio.sampleRate) + scale / 2) / scale + 1
                guard Int128(audio.sampleCount) <= most else {
                    throw fail(
                        "\(at).audio.sampleCount", "\(audio.sampleCount) is more than the segment's span holds at \(audio.sampleRate) Hz; allowed 0...\(most)")
                }
            }
        }
        if let encoder = manifest.encoder {
            guard (0...51).contains(encoder.crf) else { throw fail("encoder.crf", "\(encoder.crf) is out of range; allowed 0...51") }
            guard (1...100_000).contains(encoder.keyframeInterval) else {
                throw fail("encoder.keyframeInterval", "\(encoder.keyframeInterval) is out of range; allowed 1...100000")
            }
            guard EncoderSettings.allowedPresets.contains(encoder.preset) else {
                throw fail(
                    "encoder.preset", "'\(Excerpt.of(encoder.preset))' is not allowed; allowed: " + EncoderSettings.allowedPresets.joined(separator: ", "))
            }
        }
    }

    /// A time's timescale is positive and the time lies within ±2^62 ns of zero (146 years),
    /// whatever its timescale (a timescale of 1 would otherwise let 2^62 ticks mean 2^62 s).
    private static func checkTime(_ time: MediaTime, _ field: String, path: String) throws(RecordingError) {
        guard time.timescale >= 1 else {
            throw .badInput(path: path, field: "\(field).timescale", detail: "\(time.timescale) is not allowed; allowed: 1...\(Int32.max)")
        }
        let ns = Int128(time.value) * Int128(sessionTimescale) / Int128(time.timescale)
        guard ns >= Int128(timeRange.lowerBound), ns <= Int128(timeRange.upperBound) else {
            throw .badInput(
                path: path, field: field,
                detail: "\(time.value)/\(time.timescale) s lies more than 2^62 ns (146 years) from the session's zero; allowed: within ±2^62 ns")
        }
    }

    /// A segment's pictures end after its start and before its end.
    private static func checkFramesEnd(_ framesEnd: MediaTime, of segment: SegmentRecord, _ at: String, path: String) throws(RecordingError) {
        try checkTime(framesEnd, "\(at).framesEnd", path: path)
        func scaled(_ a: MediaTime, _ b: MediaTime) -> Int128 { Int128(a.value) * Int128(b.timescale) }
        guard scaled(framesEnd, segment.sessionStart) > scaled(segment.sessionStart, framesEnd),
            scaled(framesEnd, segment.sessionEnd) < scaled(segment.sessionEnd, framesEnd)
        else {
            throw .badInput(
                path: path, field: "\(at).framesEnd",
                detail:
                    "\(framesEnd) is not between sessionStart \(segment.sessionStart) and sessionEnd \(segment.sessionEnd); allowed: after the one, before the other"
            )
        }
    }

    /// A segment ends after it starts (or where, without frames), and lasts no longer than
    /// its frames can: ``longestFrame`` for each (at least one).
    private static func checkSpan(_ segment: SegmentRecord, _ at: String, path: String) throws(RecordingError) {
        let start = Int128(segment.sessionStart.value) * Int128(segment.sessionEnd.timescale)
        let end = Int128(segment.sessionEnd.value) * Int128(segment.sessionStart.timescale)
        guard end >= start else {
            throw .badInput(
                path: path, field: "\(at).sessionEnd", detail: "\(segment.sessionEnd) is before sessionStart \(segment.sessionStart); allowed: at or after it")
        }
        // (end − start) / (tsStart · tsEnd) ≤ frames · 2^31 / 10 000, kept exact.
        let frames = Int128(max(1, segment.frameCount))
        let longest = Int128(longestFrame.value) * frames * Int128(segment.sessionStart.timescale) * Int128(segment.sessionEnd.timescale)
        guard (end - start) * Int128(longestFrame.timescale) <= longest else {
            throw .badInput(
                path: path, field: "\(at).sessionEnd",
                detail:
                    "\(segment.sessionEnd) lies \(Double(end - start) / Double(Int128(segment.sessionStart.timescale) * Int128(segment.sessionEnd.timescale))) s after sessionStart, longer than its \(segment.frameCount) frame\(segment.frameCount == 1 ? "" : "s") can last; allowed: at most 214748.3648 s (2^31 ticks at 10 000 Hz, the longest frame a segment file holds) per frame"
            )
        }
    }
}
