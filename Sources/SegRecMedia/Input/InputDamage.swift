/// What a decoder met of damaged input, and one warning per run of damage.
///
/// Damage is what libavformat and libavcodec report and get past, as `ffmpeg` does: a
/// packet the demuxer flags `AV_PKT_FLAG_CORRUPT` (lost transport packets) is still
/// decoded; a packet the decoder rejects (`avcodec_send_packet` or
/// `avcodec_receive_frame` fail with e.g. `AVERROR_INVALIDDATA`) gives no picture, which
/// counts as a dropped picture; a picture the decoder repaired (`decode_error_flags`, or
/// `AV_FRAME_FLAG_CORRUPT`) is kept and counted as concealed; a demuxer that skips
/// unreadable data and says so (an `AV_LOG_ERROR` line, or a failed `av_read_frame`, while
/// reading, e.g. Matroska's resync to the next cluster) opens a run at the next packet,
/// whatever the decoder makes of the pictures after it; such a line logged while probing
/// the input (`avformat_find_stream_info`, which reads ahead, e.g. FLV's `Packet
/// mismatch`) makes the packets it read ahead one run. Inside a run, a gap in the
/// presentation timestamps counts the pictures it swallowed as lost. Damage events no
/// more than ``runGap`` packets apart form one run, reported by one warning.
struct InputDamage {
    /// Packets flagged corrupt by the demuxer or rejected by the decoder.
    private(set) var corruptPackets = 0
    /// Pictures lost; never decreases. Per run of damage: the larger of the packets the
    /// decoder rejected and the pictures missing from the timestamps (the same lost
    /// picture shows as both, in either order, so they are not added), plus the declared
    /// pictures a container never delivered
    /// (``declaredPicturesMissing(_:declared:delivered:atPacket:bytesAfterLastPacket:)``).
    /// An open run counts only its rejected and undelivered pictures; the pictures missing
    /// from its timestamps are settled when it closes, net of pictures that came late
    /// (after damage a decoder can put out a picture behind ones shown after it).
    var droppedPictures: Int { lostInClosedRuns + (run.map { $0.rejected + $0.undelivered } ?? 0) }
    private var lostInClosedRuns = 0
    /// Pictures the decoder output with concealed errors.
    private(set) var concealedPictures = 0
    /// Pictures counted from gaps in the timestamps, over all runs (before late ones).
    private(set) var picturesMissingFromTimestamps = 0

    /// Packets without damage that end a run.
    static let runGap: Int64 = 30

    private struct Run {
        var firstPacket: Int64, lastPacket: Int64
        var firstSeconds: Double?
        var corrupt = 0, rejected = 0, missing = 0, late = 0, undelivered = 0, concealed = 0, retimed = 0, skips = 0
        var causes: [String] = []
        var firstGapSeconds: Double?
        /// Whether a gap in this run's timestamps is a loss: always where the container
        /// does not index every picture, else once the demuxer reported lost data in it
        /// (a corrupt flag, a resync, an error while probing; see
        /// ``InputDamage/indexesEveryPicture``).
        var gapsAreLosses: Bool
        /// Pictures lost in this run (see ``InputDamage/droppedPictures``).
        var lost: Int { (gapsAreLosses ? max(rejected, netMissing) : rejected) + undelivered }
        /// Slots missing from the timestamps less the pictures that came late to fill them.
        var netMissing: Int { max(0, missing - late) }
    }
    private var run: Run?

    /// The container lists every picture in an index (an MP4's sample table): its
    /// demuxer cannot swallow a picture unless it says so (a corrupt flag, an error while
    /// reading). A run with only decoder damage then loses just the pictures the decoder
    /// rejected, and a gap beside it is the stream's own (a still period). Elsewhere
    /// (MPEG-PS resyncs without a word) a gap inside any run of damage is a loss.
    var indexesEveryPicture = false

    /// A packet (`index` in demuxing order, `seconds` its input time) flagged corrupt by
    /// the demuxer; it is still decoded. Returns the warning of a run this one ends.
    mutating func packetFlaggedCorrupt(index: Int64, seconds: Double?) -> String? {
        corruptPackets += 1
        let ended = extend(at: index, seconds: seconds)
        run!.corrupt += 1
        run!.gapsAreLosses = true
        note("packets flagged corrupt by the demuxer")
        return ended
    }

    /// The demuxer skipped unreadable data before packet `index` (it logged `logged` at
    /// `AV_LOG_ERROR` or failed a read, then went on): the pictures in that data never
    /// arrive. Returns the warning of a run this one ends.
    mutating func demuxerSkippedData(beforePacket index: Int64, seconds: Double?, logged: String) -> String? {
        let ended = extend(at: index, seconds: seconds)
        run!.skips += 1
        run!.gapsAreLosses = true
        if run!.skips == 1 { note("the demuxer reported unreadable data (\(logged))") }
        return ended
    }

    /// Packet `index` was read ahead while probing the input, during which FFmpeg logged
    /// `logged` at `AV_LOG_ERROR`: the damage lies somewhere in those packets, so they
    /// extend one run. Returns the warning of a run this one ends.
    mutating func packetReadWhileProbing(index: Int64, seconds: Double?, logged: String) -> String? {
        let ended = extend(at: index, seconds: seconds)
        run!.gapsAreLosses = true
        note("FFmpeg met damage while probing the input (\(logged))")
        return ended
    }

    /// A packet the decoder rejected with `reason`; counted corrupt unless it was already
    /// flagged (`alreadyCounted`), and its picture is lost.
    mutating func packetRejected(index: Int64, seconds: Double?, reason: String, alreadyCounted: Bool) -> String? {
        if !alreadyCounted { corruptPackets += 1 }
        let ended = extend(at: index, seconds: seconds)
        if !alreadyCounted { run!.corrupt += 1 }
        run!.rejected += 1
        note("decoder: \(reason)")
        return ended
    }

    /// A picture decoded with concealed errors while packet `index` was the latest demuxed.
    mutating func pictureConcealed(atPacket index: Int64, seconds: Double?) -> String? {
        concealedPictures += 1
        let ended = extend(at: index, seconds: seconds)
        run!.concealed += 1
        return ended
    }

    /// `count` pictures missing from the timestamps of the open run (a gap): swallowed
    /// whole by the damage, or lost in packets the decoder rejected. Counted as lost
    /// pictures unless rejected packets already account for them.
    /// `afterSeconds` is the input time of the picture before the gap.
    mutating func picturesMissing(_ count: Int, afterSeconds: Double?) {
        guard count > 0, run != nil else { return }
        if run!.missing == 0 { run!.firstGapSeconds = afterSeconds }
        run!.missing += count
        picturesMissingFromTimestamps += count
    }

    /// At the end of the input: the container declares `declared` frames, `delivered`
    /// packets came, and the file goes on `bytesAfterLastPacket` bytes after the last one
    /// (not cut short), so `count` pictures were lost inside it without a word from the
    /// demuxer. Counted as lost in a run at packet `index`; returns the warning of a run
    /// this one ends.
    mutating func declaredPicturesMissing(_ count: Int, declared: Int, delivered: Int, atPacket index: Int64, bytesAfterLastPacket: Int64) -> String? {
        guard count > 0 else { return nil }
        let ended = extend(at: index, seconds: nil)
        run!.undelivered += count
        note(
            "the container declares \(declared) frames and delivered \(delivered), though the file goes on \(bytesAfterLastPacket) bytes after its last packet (not cut short): the demuxer skipped damaged data without a word"
        )
        return ended
    }

    /// A picture of the open run that came out behind a later one (its time is below the
    /// highest seen): it fills a slot a gap counted as missing.
    mutating func pictureCameLate() { if run != nil { run!.late += 1 } }

    /// Whether a run of damage is open (damage met within the last ``runGap`` packets).
    var isRunOpen: Bool { run != nil }

    /// A picture of the open run retimed to libavcodec's best-effort timestamp.
    mutating func pictureRetimed() { if run != nil { run!.retimed += 1 } }

    /// Packet `index` was demuxed without damage: returns the warning of a run that ended
    /// ``runGap`` packets ago.
    mutating func packetClean(index: Int64) -> String? {
        guard let open = run, index - open.lastPacket > Self.runGap else { return nil }
        return closeRun()
    }

    /// The warning of the run still open at the end of the input, if any.
    mutating func finish() -> String? { run == nil ? nil : closeRun() }

    private mutating func extend(at index: Int64, seconds: Double?) -> String? {
        var ended: String?
        if let open = run, index - open.lastPacket > Self.runGap { ended = closeRun() }
        if run == nil { run = Run(firstPacket: index, lastPacket: index, firstSeconds: seconds, gapsAreLosses: !indexesEveryPicture) }
        run!.lastPacket = max(run!.lastPacket, index)
        return ended
    }

    private mutating func note(_ cause: String) { if let open = run, !open.causes.contains(cause), open.causes.count < 3 { run!.causes.append(cause) } }

    private mutating func closeRun() -> String? {
        guard let open = run else { return nil }
        run = nil
        lostInClosedRuns += open.lost
        let packets = open.firstPacket == open.lastPacket ? "packet \(open.firstPacket)" : "packets \(open.firstPacket)-\(open.lastPacket)"
        let time = open.firstSeconds.map { String(format: " (input time %.3f s)", $0) } ?? ""
        func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
        var parts = [count(open.corrupt, "corrupt packet")]
        parts.append(count(open.concealed, "picture") + " decoded with concealed errors")
        parts.append(count(open.lost, "picture") + " lost (dropped: corrupt)")
        if open.gapsAreLosses, open.netMissing > 0 {
            let after = open.firstGapSeconds.map { String(format: " (the first after input time %.3f s)", $0) } ?? ""
            parts.append(count(open.netMissing, "picture") + " missing from the timestamps" + after)
        }
        if open.undelivered > 0 { parts.append(count(open.undelivered, "declared picture") + " never delivered") }
        if open.skips > 1 { parts.append("\(open.skips) reads that reported unreadable data") }
        if open.retimed > 0 { parts.append(count(open.retimed, "picture") + " out of order given libavcodec's best-effort timestamp") }
        let causes = open.causes.isEmpty ? "" : "; " + open.causes.joined(separator: "; ")
        return "input damaged at \(packets)\(time): \(parts.joined(separator: ", ")); recording went on\(causes)"
    }
}
