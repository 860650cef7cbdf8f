import CFFmpeg

/// The room a finished copy reserves for its `moov` ahead of its `mdat` (the mov muxer's
/// `moov_size` option, `AVFormatContext` private option of libavformat's mov/mp4 muxer), so
/// that the copy is written once: with `movflags=faststart` the muxer instead writes the
/// `mdat` first and then reads the whole file back and writes it again, shifted, to make
/// room for the `moov` it wrote last (`shift_data` in `movenc.c`).
///
/// ``bytes(tracks:fixed:)`` is an upper bound of the `moov` the muxer writes for the copy,
/// from what the copy knows before its first packet: per track the number of samples and
/// the runs of equal sample durations (`stts`) and composition offsets (`ctts`); what
/// does not depend on the samples (headers, sample entries with their extradata, tags) is
/// bounded by ``fixedBytes(streams:metadata:)``. The muxer writes the `moov` into the room
/// and a `free` box over what is left (at least 8 bytes); a room too small makes
/// `av_write_trailer` fail with `AVERROR(EINVAL)`, and ``FaststartRemuxer`` then writes the
/// copy again with `faststart` (as it does when the disk has no space for the room).
enum MoovRoom {
    /// How a finished copy gets its `moov` ahead of its `mdat`.
    enum Choice: Equatable {
        /// Room of ``MoovRoom/bytes(tracks:fixed:)`` bytes (the default).
        case upperBound
        /// Room of exactly this many bytes (tests: a room too small).
        case bytes(Int)
        /// No room: `movflags=faststart` (the file is written, then shifted).
        case faststart
    }

    /// One track's sample table, as far as its size goes.
    struct Track: Equatable {
        /// Samples (packets) in the track.
        var samples: Int
        /// Runs of equal consecutive sample durations, in decode order (`stts` entries).
        var durationRuns: Int
        /// Runs of equal consecutive composition offsets, pts − dts (`ctts` entries).
        var offsetRuns: Int
    }

    /// Bytes per sample whatever the timing: `stsz` (4), `stss` (4, when not every sample is
    /// a sync sample), `sdtp` (1), and, at worst one chunk per sample, `stsc` (12) and
    /// `co64` (8).
    static let bytesPerSample = 29
    /// Bytes per `stts` or `ctts` entry.
    static let bytesPerTimingEntry = 8
    /// Bytes of a `moov` without its samples' tables and without its streams' extradata and
    /// tags: `mvhd`, the `udta`/`meta` of the file, and per track `tkhd`, `edts`/`elst`,
    /// `mdhd`, `hdlr`, `vmhd`/`smhd`, `dinf`, the sample entry and its boxes (`colr`,
    /// `pasp`, `btrt`, the mastering display boxes), the empty tables' headers and the
    /// audio's roll groups (`sgpd`/`sbgp`): a one-frame H.264 file's whole `moov` is
    /// 1 391 bytes, an HEVC one's with rotation under 1 700.
    static let bytesWithoutSamples = 2 * 1024
    /// Bytes per track on top of ``bytesWithoutSamples``.
    static let bytesPerTrack = 1024

    /// The upper bound, in bytes, of the `moov` for `tracks` (≥ 1 sample each), plus
    /// `fixed` (``fixedBytes(streams:metadata:)``).
    static func bytes(tracks: [Track], fixed: Int) -> Int {
        tracks.reduce(bytesWithoutSamples + fixed) { total, track in
            total + bytesPerTrack + track.samples * bytesPerSample + (track.durationRuns + track.offsetRuns) * bytesPerTimingEntry
        }
    }

    /// What the copied streams and file carry whatever their samples: each stream's
    /// extradata (`avcC`, `hvcC`, `esds`; counted twice, for the boxes that wrap it) and side
    /// data, and every tag of the streams and the file (key and value, UTF-8 bytes).
    static func fixedBytes(streams: [UnsafeMutablePointer<AVStream>], metadata: [OpaquePointer?]) -> Int {
        var total = 0
        for stream in streams {
            if let parameters = stream.pointee.codecpar { total += 2 * Int(max(0, parameters.pointee.extradata_size)) }
            for i in 0..<Int(stream.pointee.nb_side_data) { total += 64 + stream.pointee.side_data[i].size }
        }
        for dictionary in metadata {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
            while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                total += 32 + strlen(next.pointee.key) + strlen(next.pointee.value)
                entry = next
            }
        }
        return total
    }

    /// Runs of equal consecutive values (0 for none).
    static func runs<S: Sequence>(_ values: S) -> Int where S.Element: Equatable {
        var count = 0
        var last: S.Element?
        for value in values where value != last {
            count += 1
            last = value
        }
        return count
    }
}
