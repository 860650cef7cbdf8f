import CFFmpeg
import Foundation
import SegRecTime

/// What ``SegmentRecovery/recover(partial:to:knownEnd:)`` wrote.
package struct RecoveredSegment: Sendable, Hashable {
    /// The finished file.
    package let url: URL
    /// Frames (packets) kept: a decode-order prefix of the partial file.
    package let frameCount: Int
    /// Packets the partial file held (complete or truncated) that were not kept.
    package let framesDropped: Int
    /// Ticks per second of the stream's time base (`1/timescale`; the frame rate's tick for
    /// segrec's files, see ``TrackTiming``).
    package let timescale: Int32
    /// The first kept frame's presentation time (the segment's 0 for segrec's files).
    package let firstPresentationTime: MediaTime
    /// Where the kept frames' presentation ends: the last presented frame's pts plus its
    /// stored duration.
    package let end: MediaTime
    /// True when the caller's `knownEnd` was used (every frame of a closed segment kept):
    /// ``end`` is then that end rounded to the track's tick, and the exact end is the
    /// caller's.
    package let endsAtKnownEnd: Bool

    /// ``end`` on the session clock of a segment starting at `sessionStart`: `knownEnd`
    /// itself when ``endsAtKnownEnd`` (exact), else `sessionStart + end` rounded to
    /// `sessionStart`'s timescale (half away from zero).
    /// - Throws: ``MediaTimeError`` on overflow.
    package func sessionEnd(start sessionStart: MediaTime, knownEnd: MediaTime?) throws -> MediaTime {
        if endsAtKnownEnd, let knownEnd { return try sessionStart.adding(knownEnd) }
        return try sessionStart.adding(end.converted(toTimescale: sessionStart.timescale))
    }
    /// Size of the finished file in bytes.
    package let byteCount: Int64
    /// The audio track kept (a prefix of the partial file's complete audio packets, ending
    /// at the kept video's end or before), or nil when none was (no audio in the partial).
    package var audio: RecoveredAudio? = nil
    /// Whether it was written into a file already at `url` + `.tmp` (the segment's
    /// `SpaceReservation`), which ``SegmentRecovery/discard(_:)`` then leaves in place.
    package let reusedReservation: Bool
}

/// Why ``SegmentRecovery/recover(partial:to:knownEnd:)`` could not produce a file.
package enum SegmentRecoveryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The partial file holds no complete frame that can be kept (e.g. killed before the
    /// first fragment was written): `reason` says what was found.
    case noFrames(path: String, reason: String)
    /// The stream's time base is not `1/n` (segrec never writes such files).
    case unsupportedTimeBase(path: String, numerator: Int32, denominator: Int32)

    /// One line naming the partial file.
    package var description: String {
        switch self {
        case .noFrames(let path, let reason): "no frame can be recovered from \(path): \(reason)"
        case .unsupportedTimeBase(let path, let numerator, let denominator): "cannot recover \(path): time base \(numerator)/\(denominator) is not 1/n"
        }
    }
}

/// Turns a partial segment file left by a crash (`kill -9`, power loss, disk full) into an
/// ordinary MP4 holding every frame that can be kept.
///
/// The partial file (normally a fragmented MP4 written by ``SegmentWriter``, possibly cut
/// in the middle of a fragment) is read with libavformat; packets whose data is truncated
/// (`AV_PKT_FLAG_CORRUPT`, or shorter than the sample table says) end what can be kept.
/// The kept frames are the longest decode-order prefix whose presentation has no gap: the
/// largest `n` such that every one of the first `n` packets is complete, the largest pts
/// among them is below the pts of every later packet read (complete or not), and is ≤ the
/// dts of the last packet read (packets never read have pts ≥ their dts > that dts). A
/// partial file that was finished but not renamed may therefore lose the last few frames
/// presented after its last decode time (at most the encoder's reordering depth).
package enum SegmentRecovery {
    /// Recovers `partial` into a new file at `url` (written to `url` + `.tmp`: into the
    /// blocks of a regular file already there, the segment's `SpaceReservation`, else
    /// created exclusively; `fsync`ed, then given the name `url` with `link(2)`), a `faststart` MP4 made by
    /// stream copy: same pts, codec tag, extradata and rotation (decode times and sample
    /// durations as `FaststartRemuxer` sets them); every frame lasts
    /// until the next presented one, the last presented one lasts until the first frame read
    /// but not kept (its exact successor), else keeps its stored duration.
    /// `partial` is left in place: the caller deletes it.
    ///
    /// - Parameter knownEnd: when the caller knows how many frames the segment had and where
    ///   it ends (relative to its start; a segment that was closed), and every one of them is
    ///   kept, the last frame lasts until that end (rounded to the track's tick, as
    ///   ``SegmentWriter`` rounds it; ``RecoveredSegment/endsAtKnownEnd`` is then true).
    /// - Returns: frames kept and dropped, time base, first pts, end and size.
    /// - Throws: ``SegmentRecoveryError/noFrames(path:reason:)`` when nothing can be kept
    ///   (no file is written), ``SegmentRecoveryError/unsupportedTimeBase(path:numerator:denominator:)``,
    ///   ``SegmentWriterError/fileExists(path:)`` when `url` exists (it is not touched),
    ///   ``SegmentWriterError/partialFileExists(path:)`` when something that is not a
    ///   reusable regular file (a symbolic link, a folder, a file with two names) is at `url.tmp`,
    ///   ``SegmentWriterError/io(path:operation:errno:)`` when writing fails, or
    ///   ``FFmpegError`` (``FFmpegError/isNotFound`` when `partial` is missing; ELOOP when it
    ///   is a symbolic link).
    package static func recover(partial: URL, to url: URL, knownEnd: (frameCount: Int, end: MediaTime)? = nil) throws -> RecoveredSegment {
        guard !SafeFile.exists(path: url.path) else { throw SegmentWriterError.fileExists(path: url.path) }
        let prepared = try prepare(partial: partial, to: url, knownEnd: knownEnd)
        try commit(prepared)
        return prepared
    }

    /// The first half of ``recover(partial:to:knownEnd:)``: writes the finished file to
    /// `url` + `.tmp` (created exclusively, `fsync`ed) and changes nothing else; ``commit(_:)``
    /// then gives it the name `url`, or ``discard(_:)`` removes it. `url` may exist meanwhile
    /// (the caller moves it aside before committing).
    /// - Throws: what ``recover(partial:to:knownEnd:)`` throws, except `fileExists`.
    package static func prepare(partial: URL, to url: URL, knownEnd: (frameCount: Int, end: MediaTime)? = nil) throws -> RecoveredSegment {
        FFmpegLog.silence()
        let scan: FaststartRemuxer.Scan
        switch Result(catching: { () throws(FFmpegError) in try FaststartRemuxer.scan(path: partial.path) }) {
        case .success(let found): scan = found
        case .failure(let error):
            guard error.call == "avformat_open_input" || error.call == "avformat_find_stream" else { throw error }
            throw SegmentRecoveryError.noFrames(path: partial.path, reason: error.description)
        }
        guard scan.timeBase.num == 1 else {
            throw SegmentRecoveryError.unsupportedTimeBase(path: partial.path, numerator: scan.timeBase.num, denominator: scan.timeBase.den)
        }
        var count = keptCount(scan.packets)
        guard count > 0 else {
            let reason = scan.packets.isEmpty ? "it holds no packet" : "its first packet is truncated"
            throw SegmentRecoveryError.noFrames(path: partial.path, reason: reason)
        }
        let temporary = SegmentFiles(url).temporary.path
        var written = try copy(scan, count: count, from: partial, to: temporary, knownEnd: knownEnd)
        let reused = written.4
        // A write cut short can leave a sample whose size the fragment header states but
        // whose bytes are not the frame's: every kept frame must decode. Cut before the first
        // that does not (and again at a gap-free point), and copy again.
        let decodable = decodableFrameCount(URL(fileURLWithPath: temporary))
        if decodable < count {
            // Written again into the same blocks (the copy is reused).
            let bad = scan.packets[decodable]
            count = keptCount(
                Array(scan.packets.prefix(decodable)) + [FaststartRemuxer.PacketTiming(pts: bad.pts, dts: bad.dts, duration: bad.duration, isComplete: false)])
            guard count > 0 else { throw SegmentRecoveryError.noFrames(path: partial.path, reason: "its first frame does not decode") }
            written = try copy(scan, count: count, from: partial, to: temporary, knownEnd: knownEnd)
        }
        let (size, end, firstPTS, usedKnownEnd, _) = written
        let timescale = scan.timeBase.den
        var recovered = RecoveredSegment(
            url: url, frameCount: count, framesDropped: scan.packets.count - count, timescale: timescale,
            firstPresentationTime: MediaTime(value: firstPTS, timescale: timescale), end: MediaTime(value: end, timescale: timescale),
            endsAtKnownEnd: usedKnownEnd, byteCount: size, reusedReservation: reused)
        if let audio = scan.audio, let kept = keptAudio(scan, videoEnd: end) {
            // A track that starts after the file's 0 (sound copied as sent) declares its length from its first packet.
            let start = max(0, scan.audioPackets.first?.pts ?? 0)
            recovered.audio = RecoveredAudio(
                sampleRate: audio.sampleRate, channelCount: audio.channelCount, sampleCount: kept.end - start, codecName: audio.codecName)
        }
        return recovered
    }

    /// Gives the file ``prepare(partial:to:knownEnd:)`` wrote its final name
    /// (`SafeFile.moveNoReplace`, `link(2)`: never replacing, the folder `fsync`ed).
    /// - Throws: ``SegmentWriterError/fileExists(path:)`` or
    ///   ``SegmentWriterError/renameFailed(from:to:reason:)``; the temporary file is removed.
    package static func commit(_ segment: RecoveredSegment) throws(SegmentWriterError) {
        let temporary = SegmentFiles(segment.url).temporary.path
        do { try SafeFile.moveNoReplace(from: temporary, to: segment.url.path) } catch {
            SafeFile.remove(path: temporary)
            throw error
        }
    }

    /// Removes the file ``prepare(partial:to:knownEnd:)`` wrote, leaving everything else.
    /// A reused reservation stays (its room, for the next attempt).
    package static func discard(_ segment: RecoveredSegment) {
        if !segment.reusedReservation { SafeFile.remove(path: SegmentFiles(segment.url).temporary.path) }
    }

    /// Copies the first `count` packets of `partial` into `temporary`; the last presented
    /// frame lasts until the known end, the next frame read, or one frame interval.
    /// - Returns: the size written, the end and the first pts (time base ticks), whether
    ///   the known end was used, and whether a file at `temporary` was reused.
    private static func copy(_ scan: FaststartRemuxer.Scan, count: Int, from partial: URL, to temporary: String, knownEnd: (frameCount: Int, end: MediaTime)?)
        throws -> (Int64, Int64, Int64, Bool, Bool)
    {
        let presented = scan.packets.prefix(count).sorted { $0.pts < $1.pts }
        let last = presented[presented.count - 1]
        var lastDuration = last.duration
        var usedKnownEnd = false
        if let knownEnd, knownEnd.frameCount == count, let ticks = TrackTiming.ticks(knownEnd.end, atTimescale: scan.timeBase.den) {
            // Every frame of a segment whose end the recorder knew (it had closed it).
            lastDuration = max(ticks, last.pts + 1) - last.pts
            usedKnownEnd = true
        } else if let next = scan.packets.dropFirst(count).map(\.pts).min(), next > last.pts {
            // The next presented frame was read (complete or truncated): the kept frames end
            // exactly where it starts, as they would have in the finished file.
            lastDuration = next - last.pts
        } else if lastDuration <= 0 {
            // No stored duration (the demuxer reports none for fragment samples): the
            // interval before it, as a camera's next frame would come (1 tick alone).
            lastDuration = presented.count > 1 ? last.pts - presented[presented.count - 2].pts : 1
        }
        let end = last.pts + lastDuration
        let audio = keptAudio(scan, videoEnd: end)
        let (size, reused) = try FaststartRemuxer.copy(
            from: partial.path, scan: scan, count: count, end: end, to: temporary, reuseExisting: true, audioCount: audio?.count ?? 0, audioEnd: audio?.end)
        return (size, end, presented[0].pts, usedKnownEnd, reused)
    }

    /// The audio a recovered segment keeps: the complete audio packets (file order) that
    /// start before the kept video's end `videoEnd` (video time base ticks), the track
    /// ending at that end or at the last kept packet's, whichever is first (samples, from
    /// the file's 0). Nil without audio, or with nothing past the encoder's priming.
    static func keptAudio(_ scan: FaststartRemuxer.Scan, videoEnd: Int64) -> (count: Int, end: Int64)? {
        guard let audio = scan.audio, audio.timeBase.num == 1, scan.timeBase.num == 1, scan.timeBase.den > 0 else { return nil }
        let limit = Int64(clamping: Int128(videoEnd) * Int128(audio.timeBase.den) / Int128(scan.timeBase.den))
        let packets = scan.audioPackets
        var count = 0
        var end: Int64 = 0
        while count < packets.count, packets[count].isComplete, packets[count].pts < limit {
            let stop = count + 1 < packets.count ? packets[count + 1].pts : packets[count].pts + max(packets[count].duration, 1)
            end = min(stop, limit)
            count += 1
        }
        return end > 0 ? (count, end) : nil
    }

    /// How many frames of `file` decode before the first decoding error (all of them when
    /// none fails).
    private static func decodableFrameCount(_ file: URL) -> Int {
        var decoded = 0
        do { try MediaFileReader(url: file).decodeFrames { _ in decoded += 1 } } catch {}
        return decoded
    }

    /// The cut rule (see the type's documentation): how many of `packets` (decode order, as
    /// read) to keep. 0 when the first one is truncated or there is none.
    static func keptCount(_ packets: [FaststartRemuxer.PacketTiming]) -> Int {
        guard let lastDTS = packets.last?.dts else { return 0 }
        let completePrefix = packets.firstIndex { !$0.isComplete } ?? packets.count
        // laterMin[i] = min pts of packets[i...] (Int64.max past the end).
        var laterMin = [Int64](repeating: .max, count: packets.count + 1)
        for i in stride(from: packets.count - 1, through: 0, by: -1) { laterMin[i] = min(laterMin[i + 1], packets[i].pts) }
        var best = 0
        var prefixMax = Int64.min
        for n in stride(from: 1, through: completePrefix, by: 1) {
            prefixMax = max(prefixMax, packets[n - 1].pts)
            if prefixMax < laterMin[n] && prefixMax <= lastDTS { best = n }
        }
        return best
    }
}
