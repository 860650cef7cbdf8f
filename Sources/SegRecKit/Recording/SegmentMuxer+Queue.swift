import SegRecTime

/// How many pictures may wait for the encoder (``FrameSlots``' capacity), by source.
extension SegmentMuxer {
    /// Pictures queued to writers and not yet encoded, across segments, at most.
    package static let framesInFlight = 6

    /// The same for a stream copied as sent (`--copy`): its packets are small (tens of
    /// kilobytes for 1080p H.264) and handed to the writer in batches of at most
    /// ``copyBatchPictures``, which hold their slots, so there is room for two batches.
    package static let copyFramesInFlight = 2 * copyBatchPictures

    /// Pictures of a copied stream handed to the writer together, at most
    /// (``WriterCommandBatch``).
    static let copyBatchPictures = 8

    /// File time a batch of a copied stream spans at most: a quarter of a second, well within
    /// a fragment (`--fragment-interval`, default 1 s), so the writer's thread wakes about
    /// four times a second at 30 fps instead of 80 (pictures and sound packets).
    static let copyBatchSpan = MediaTime(value: 1, timescale: 4)

    /// The same for footage passed through without `--realtime`: the file is read as fast
    /// as the encoder takes it, nothing waits on a capture deadline, and each picture
    /// queued holds its demuxed packet (3 MiB at 1080p yuv420p) until the encoder has
    /// copied it; two keep one read ahead of one encode. (Measured on a 1080p Y4M file:
    /// 2–4 % less CPU and fewer page faults than 6; an H.264 file the same either way.)
    package static let passThroughFramesInFlight = 2

    /// The same for a raw frame stream (YUV4MPEG2, raw video) passed through without
    /// `--realtime`: reading a picture is one `read(2)` into pool planes (about 1 ms for 3 MiB),
    /// far less than encoding it, so the reader refills the one slot as soon as the encoder
    /// empties it; a second queued picture only holds 3 MiB more at 1080p. (Measured on the
    /// 1080p 300-frame Y4M clip: peak RSS 3 MiB lower, CPU and wall the same; see
    /// Docs/performance.md.)
    package static let rawFrameStreamFramesInFlight = 1

    /// The same for footage paced in real time (`--realtime`: a file or pipe standing for a
    /// live source): half a second of its frames at `frameRate` (rounded up), at least
    /// ``framesInFlight`` and at most 240: the lag `ffmpeg -re` is allowed before it falls
    /// behind, so a passing encoder hiccup on a loaded machine is absorbed instead of
    /// dropping frames `late`. The pictures are only held while the encoder is behind.
    /// (Measured, part 6 of `Scripts/bench`: with 6, one in 480 frames dropped late at 8
    /// concurrent 1080p30 streams on 2 cores; with 15, none.)
    package static func realtimeFootageFramesInFlight(frameRate: FrameRate) -> Int {
        let halfSecond = (frameRate.numerator + 2 * frameRate.denominator - 1) / (2 * max(1, frameRate.denominator))
        return Int(min(240, max(Int64(framesInFlight), halfSecond)))
    }
}
