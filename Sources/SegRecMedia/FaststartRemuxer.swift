import CFFmpeg
import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// Copies the video stream of an MP4 (fragmented or not) into a new ordinary MP4 whose
/// `moov` precedes its `mdat` (`movflags=faststart`): a stream copy with libavformat, never
/// a re-encode. pts are kept, decode times and sample durations are set as
/// ``copy(from:scan:count:end:to:sizeLimit:)`` says; codec parameters, extradata, the codec
/// tag (`hvc1`) and the stream's side data (the display matrix, i.e. rotation) are copied.
///
/// Used twice: by ``SegmentWriter/finish(endTime:)`` (the whole partial file) and by
/// ``SegmentRecovery`` (a gap-free prefix of a truncated one). Works in two passes over the
/// input (``scan(path:)``, then ``copy(from:scan:count:end:to:sizeLimit:)``) so memory
/// stays small whatever the file's length.
enum FaststartRemuxer {
    /// One demuxed packet's timing, in the stream's time base.
    struct PacketTiming {
        let pts: Int64
        let dts: Int64
        /// The stored (sample) duration, 0 when the demuxer gives none.
        let duration: Int64
        /// False when its data is truncated (`AV_PKT_FLAG_CORRUPT`, or shorter than the
        /// index says).
        let isComplete: Bool
        /// The data's size, bytes (0 when not known).
        var size: Int = 0
    }

    /// What ``scan(path:)`` found.
    struct Scan {
        /// The first video stream's time base.
        let timeBase: AVRational
        /// Its packets in decode (file) order, complete or not.
        let packets: [PacketTiming]
        /// The error that ended reading early (a truncated file), nil at a clean EOF.
        let readError: FFmpegError?
        /// The first audio stream's packets in file order (empty without one).
        var audioPackets: [PacketTiming] = []
        /// The first audio stream's time base, sample rate and channels (nil without one).
        var audio: (timeBase: AVRational, sampleRate: Int, channelCount: Int, codecName: String)? = nil
    }

    /// Pass 1: every packet of the first video stream that libavformat can read. A read
    /// error ends the scan (it is reported in ``Scan/readError``, not thrown).
    /// - Throws: ``FFmpegError`` when the file cannot be opened or has no video stream
    ///   (`AVERROR_STREAM_NOT_FOUND`), or a packet has no pts / dts.
    static func scan(path: String) throws(FFmpegError) -> Scan {
        let input = try InputFormatContext(reading: FileAVIOContext(reading: path))
        let stream = try videoStream(of: input, path: path)
        let audio = audioStream(of: input)
        let packet = try Packet()
        let p = packet.pointer
        var packets: [PacketTiming] = []
        var audioPackets: [PacketTiming] = []
        var readError: FFmpegError?
        var sampleIndex: Int32 = 0
        var audioSampleIndex: Int32 = 0
        var info = stat()
        let fileSize = stat(path, &info) == 0 ? Int64(info.st_size) : Int64.max
        while true {
            let read = av_read_frame(input.pointer, p)
            if read == segrec_averror_eof() { break }
            if read < 0 {
                readError = FFmpegError(call: "av_read_frame", code: read, context: path)
                break
            }
            defer { av_packet_unref(p) }
            if let audio, p.pointee.stream_index == audio.pointee.index {
                audioPackets.append(timing(of: p, in: audio, sample: audioSampleIndex, fileSize: fileSize))
                audioSampleIndex += 1
                continue
            }
            guard p.pointee.stream_index == stream.pointee.index else { continue }
            guard p.pointee.pts != segrec_av_nopts_value(), p.pointee.dts != segrec_av_nopts_value() else {
                throw FFmpegError(call: "av_read_frame", code: segrec_averror_invaliddata(), context: "\(path): packet \(packets.count) has no timestamp")
            }
            var complete = (p.pointee.flags & AV_PKT_FLAG_CORRUPT) == 0
            // The index entry of this sample (same file position) says how long it should be.
            let entry = avformat_index_get_entry(stream, sampleIndex)
            let confirmed = entry.map { $0.pointee.pos == p.pointee.pos && Int64($0.pointee.size) == Int64(p.pointee.size) } ?? false
            if let entry, entry.pointee.pos == p.pointee.pos, p.pointee.size < entry.pointee.size { complete = false }
            // Data reaching the end of the file is what a write cut short looks like (the
            // demuxer hands out what it could read): complete only if the sample table
            // confirms its size.
            if p.pointee.pos >= 0, p.pointee.pos + Int64(p.pointee.size) >= fileSize, !confirmed { complete = false }
            sampleIndex += 1
            packets.append(PacketTiming(pts: p.pointee.pts, dts: p.pointee.dts, duration: p.pointee.duration, isComplete: complete, size: Int(p.pointee.size)))
        }
        return Scan(
            timeBase: stream.pointee.time_base, packets: packets, readError: readError, audioPackets: audioPackets,
            audio: audio.map { a in
                let parameters = a.pointee.codecpar.pointee
                return (
                    a.pointee.time_base, Int(parameters.sample_rate), Int(parameters.ch_layout.nb_channels),
                    String(cString: avcodec_get_name(parameters.codec_id))
                )
            })
    }

    /// An audio packet's timing and completeness, judged like a video packet's (flag, index
    /// entry, end of file).
    private static func timing(of p: UnsafeMutablePointer<AVPacket>, in stream: UnsafeMutablePointer<AVStream>, sample: Int32, fileSize: Int64) -> PacketTiming
    {
        var complete = (p.pointee.flags & AV_PKT_FLAG_CORRUPT) == 0 && p.pointee.pts != segrec_av_nopts_value() && p.pointee.dts != segrec_av_nopts_value()
        let entry = avformat_index_get_entry(stream, sample)
        let confirmed = entry.map { $0.pointee.pos == p.pointee.pos && Int64($0.pointee.size) == Int64(p.pointee.size) } ?? false
        if let entry, entry.pointee.pos == p.pointee.pos, p.pointee.size < entry.pointee.size { complete = false }
        if p.pointee.pos >= 0, p.pointee.pos + Int64(p.pointee.size) >= fileSize, !confirmed { complete = false }
        return PacketTiming(pts: p.pointee.pts, dts: p.pointee.dts, duration: p.pointee.duration, isComplete: complete, size: Int(p.pointee.size))
    }

    /// The first stream whose `codec_type` is audio, or nil.
    static func audioStream(of input: InputFormatContext) -> UnsafeMutablePointer<AVStream>? {
        input.streams.first { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
    }

    /// Pass 2: writes the first `count` packets (decode order) of `path` into a new file
    /// created exclusively at `output` (``FileAVIOContext/init(creating:sizeLimit:)``).
    ///
    /// Timing of the copy (`P` = the kept pts sorted, `p_k` = the pts of the k-th packet in
    /// decode order, `S = max(0, max_k(P[k] − p_k))`, the encoder's reordering depth in time):
    /// - decode time `dts_k = P[k] − S`: increasing, never after `p_k`, and spaced exactly
    ///   like the presentation times, so the sample durations (`stts`) are the frames'
    ///   presentation durations in presentation order: `P[k+1] − P[k]`, the last `end −
    ///   P.last`. A constant-rate segment has one `stts` entry whether or not the encoder
    ///   used B-frames; MediaInfo and ffprobe count every frame at the exact rate, and the
    ///   sample durations sum to the presentation's length.
    /// - composition offsets (`ctts`) `p_k − dts_k ≥ 0`; the mov muxer writes an edit list
    ///   starting at the first frame (media time `S`), so the first pts reads back as 0;
    /// - `duration` of every packet is its presentation duration (the next pts minus its
    ///   pts; `end − pts` for the last presented one), so the presentation (the edit list)
    ///   ends exactly at `end`; the last packet in decode order instead gets `end − P.last`,
    ///   which the muxer takes for the last `stts` entry and which never ends it after `end`.
    ///
    /// - Parameters:
    ///   - scan: ``scan(path:)`` of the same file; `count` ≤ its packets, all complete.
    ///   - end: presentation end in the stream's time base, after every kept pts.
    ///   - reservation: the room held at `output` (``SpaceReservation``, still open): the
    ///     copy is written into its blocks from offset 0; on failure the file stays.
    ///   - reuseExisting: without `reservation`, when a regular file of this user with one
    ///     name is at `output` (a segment's reservation, or a copy a killed run left), write
    ///     into its blocks the same way instead of creating the file.
    ///   - moovRoom: how the `moov` gets ahead of the `mdat` (``MoovRoom/Choice``): by
    ///     default the copy is written once, into a file that keeps room for it; when the
    ///     room turns out too small, the copy is written again with `movflags=faststart`.
    /// - Returns: the size of the file written, in bytes, and whether an existing file was reused.
    /// - Throws: ``SegmentWriterError/partialFileExists(path:)`` when `output` exists (and is
    ///   not reused),
    ///   ``SegmentWriterError/io(path:operation:errno:)`` when writing it fails,
    ///   ``SegmentWriterError/packetCountMismatch(frames:packets:)`` when the file now
    ///   holds fewer packets, or ``FFmpegError`` (`AVERROR_INVALIDDATA` when `count` is out
    ///   of range, two kept packets share a pts, or `end` is not after every kept pts). On a
    ///   throw, a file created at `output` is deleted.
    static func copy(
        from path: String, scan: Scan, count: Int, end: Int64, to output: String, sizeLimit: Int64? = nil, reservation held: SpaceReservation? = nil,
        reuseExisting: Bool = false, audioCount: Int = 0, audioEnd: Int64? = nil, moovRoom choice: MoovRoom.Choice = .upperBound, chapters: [MovieChapter] = []
    ) throws -> (size: Int64, reused: Bool) {
        let kept = scan.packets.prefix(max(0, count))
        let presented = kept.map(\.pts).sorted()
        guard count > 0, count <= scan.packets.count, let lastPresented = presented.last, end > lastPresented, Set(presented).count == presented.count else {
            throw FFmpegError(
                call: "av_write_frame", code: segrec_averror_invaliddata(),
                context: "\(path): cannot copy \(count) packets ending at \(end) (duplicate or late pts)")
        }
        var durations: [Int64: Int64] = [:]
        for (i, pts) in presented.enumerated() { durations[pts] = (i + 1 < presented.count ? presented[i + 1] : end) - pts }
        let reorderDepth = max(0, zip(presented, kept).map { $0 - $1.pts }.max() ?? 0)

        let input = try InputFormatContext(reading: FileAVIOContext(reading: path))
        let inStream = try videoStream(of: input, path: path)
        let audioCount = min(audioCount, scan.audioPackets.count)
        let (format, outStream, audio) = try makeOutput(output, from: input, video: inStream, audioCount: audioCount)
        try MovieChapter.add(chapters, to: format, end: MediaTime(value: end * Int64(scan.timeBase.num), timescale: scan.timeBase.den))
        let reservation = held ?? (reuseExisting ? SpaceReservation(existing: output) : nil)
        let file = try reservation.map { try FileAVIOContext(writingInto: $0, sizeLimit: sizeLimit) } ?? FileAVIOContext(creating: output, sizeLimit: sizeLimit)
        // Made durable once, at the end: the disk starts on it as it is written.
        file.startsWritebackEvery = writebackChunkBytes
        format.attach(file)
        var moovRoom: Int? =
            switch choice {
            case .upperBound:
                moovRoomBytes(
                    input: input, video: inStream, kept: kept, presented: presented, reorderDepth: reorderDepth, end: end, audio: audio?.input,
                    audioPackets: scan.audioPackets.prefix(audioCount), audioEnd: audioEnd)
            case .bytes(let bytes): max(1, min(bytes, Int(Int32.max)))
            case .faststart: nil
            }
        // Reserved blocks are what a full disk leaves for this copy: the room only when the
        // file with it fits (ftyp, room, mdat header and the samples), else faststart, whose
        // file is only the moov and the samples.
        if let room = moovRoom, let reservation, reservation.isSupported, reservation.reserved > 0 {
            let samples = kept.reduce(0) { $0 + $1.size } + scan.audioPackets.prefix(audioCount).reduce(0) { $0 + $1.size }
            if Int64(1024 + room + samples) > reservation.reserved { moovRoom = nil }
        }
        do {
            try writeHeader(format, moovRoom: moovRoom)
            let audioWanted = audio == nil ? 0 : audioCount
            let (written, audioWritten) = try copyPackets(
                from: input, path: path, to: format, video: (inStream, outStream), audio: audio, scan: scan, count: count, audioWanted: audioWanted,
                audioEnd: audioEnd, presented: presented, durations: durations, reorderDepth: reorderDepth, end: end)
            guard written == count else { throw SegmentWriterError.packetCountMismatch(frames: count, packets: written) }
            guard audioWritten == audioWanted else { throw SegmentWriterError.packetCountMismatch(frames: audioWanted, packets: audioWritten) }
            let trailer = av_write_trailer(format.pointer)
            if trailer == segrec_averror_from_errno(EINVAL), moovRoom != nil, format.file?.failure == nil { throw MoovRoomTooSmall() }
            try checkIO(trailer, "av_write_trailer", format)
            // Durable before it gets its final name (and before any manifest counts it).
            if let failure = format.file?.sync() { throw failure }
            format.file?.releaseUnusedReservation()
            let size = format.file.flatMap { SafeFile.size(of: $0.fd) } ?? 0
            try format.closeFile()
            return (size, reservation != nil)
        } catch {
            try? format.closeFile()
            // A reused file keeps its blocks for the next attempt (recover, or salvage).
            if reservation == nil { SafeFile.remove(path: output) }
            // The room costs disk space faststart does not need: on a full disk (a file
            // system without reservations, a recovery with none left) faststart may still fit.
            let diskFull = if case .io(_, _, ENOSPC)? = error as? SegmentWriterError { true } else { false }
            guard error is MoovRoomTooSmall || (moovRoom != nil && diskFull) else { throw error }
        }
        // The room was too small (the muxer wrote the `moov` over the start of the `mdat`),
        // or the disk had no space for it: the whole copy again, with faststart, into the
        // same blocks.
        let again = try copy(
            from: path, scan: scan, count: count, end: end, to: output, sizeLimit: sizeLimit, reservation: nil, reuseExisting: reservation != nil,
            audioCount: audioCount, audioEnd: audioEnd, moovRoom: .faststart, chapters: chapters)
        return (again.size, reservation != nil)
    }

    /// The copy's muxer: the video stream as the input's (codec parameters, side data, tags),
    /// the audio stream copied as it is when `audioCount` packets of it are kept, and a
    /// movie timescale both tracks divide.
    private static func makeOutput(_ output: String, from input: InputFormatContext, video inStream: UnsafeMutablePointer<AVStream>, audioCount: Int) throws
        -> (OutputFormatContext, UnsafeMutablePointer<AVStream>, (input: UnsafeMutablePointer<AVStream>, output: UnsafeMutablePointer<AVStream>)?)
    {
        let format = try OutputFormatContext(formatName: "mp4", path: output)
        guard let outStream = avformat_new_stream(format.pointer, nil) else {
            throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: output)
        }
        // VP9's sample entry (vpcC) is written from the pixel format, which the mov demuxer does
        // not read from it (a VP9 stream copied as sent, `--copy`): decoding a picture tells it.
        if inStream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_VP9, inStream.pointee.codecpar.pointee.format < 0 {
            _ = avformat_find_stream_info(input.pointer, nil)
        }
        try check(avcodec_parameters_copy(outStream.pointee.codecpar, inStream.pointee.codecpar), "avcodec_parameters_copy", context: output)
        outStream.pointee.time_base = inStream.pointee.time_base
        try copySideData(from: inStream, to: outStream, context: output)
        try copyTags(from: input, stream: inStream, to: format, stream: outStream, context: output)
        // The audio stream, copied as it is (its packets' pts, dts and durations).
        var audio: (input: UnsafeMutablePointer<AVStream>, output: UnsafeMutablePointer<AVStream>)?
        if audioCount > 0, let inAudio = audioStream(of: input) {
            guard let outAudio = avformat_new_stream(format.pointer, nil) else {
                throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: output)
            }
            try check(avcodec_parameters_copy(outAudio.pointee.codecpar, inAudio.pointee.codecpar), "avcodec_parameters_copy", context: output)
            outAudio.pointee.codecpar.pointee.codec_tag = 0
            outAudio.pointee.time_base = inAudio.pointee.time_base
            if let entry = av_dict_get(inAudio.pointee.metadata, "encoder", nil, 0) {
                try check(av_dict_set(&outAudio.pointee.metadata, "encoder", entry.pointee.value, 0), "av_dict_set", context: "\(output): audio encoder")
            }
            audio = (inAudio, outAudio)
        }
        if inStream.pointee.time_base.num == 1 {
            // mvhd/elst at a timescale both tracks divide: the edit lists stay exact.
            let audioRate = audio.flatMap { $0.input.pointee.time_base.num == 1 ? Int($0.input.pointee.time_base.den) : nil }
            try check(
                av_opt_set_int(
                    format.pointer.pointee.priv_data, "movie_timescale",
                    TrackTiming.movieTimescale(videoTimescale: inStream.pointee.time_base.den, audioSampleRate: audioRate), 0), "av_opt_set_int",
                context: "movie_timescale")
        }
        return (format, outStream, audio)
    }

    /// Copies the first `count` video packets of `input` (decode times `presented[k] − reorderDepth`,
    /// presentation durations, the last one ending at `end`) and its first `audioWanted` audio
    /// packets (each lasting until the next, the last until `audioEnd`) into `format`; returns
    /// how many of each were written.
    private static func copyPackets(
        from input: InputFormatContext, path: String, to format: OutputFormatContext,
        video: (input: UnsafeMutablePointer<AVStream>, output: UnsafeMutablePointer<AVStream>),
        audio: (input: UnsafeMutablePointer<AVStream>, output: UnsafeMutablePointer<AVStream>)?, scan: Scan, count: Int, audioWanted: Int, audioEnd: Int64?,
        presented: [Int64], durations: [Int64: Int64], reorderDepth: Int64, end: Int64
    ) throws -> (written: Int, audioWritten: Int) {
        let (inStream, outStream) = video
        let kept = scan.packets.prefix(max(0, count))
        let lastPresented = presented[presented.count - 1]
        let packet = try Packet()
        let p = packet.pointer
        var written = 0
        var audioWritten = 0
        while written < count || audioWritten < audioWanted {
            let read = av_read_frame(input.pointer, p)
            if read == segrec_averror_eof() { break }
            try check(read, "av_read_frame", context: path)
            defer { av_packet_unref(p) }
            if let audio, p.pointee.stream_index == audio.input.pointee.index {
                guard audioWritten < audioWanted else { continue }
                // Each packet lasts until the next; the last until the track's end (the
                // fragments' sample durations are not trusted for it).
                let packets = scan.audioPackets
                p.pointee.duration =
                    audioWritten + 1 < audioWanted
                    ? packets[audioWritten + 1].pts - packets[audioWritten].pts
                    : max(1, (audioEnd ?? (packets[audioWritten].pts + max(packets[audioWritten].duration, 1))) - packets[audioWritten].pts)
                audioWritten += 1
                p.pointee.stream_index = audio.output.pointee.index
                p.pointee.pos = -1
                try checkIO(av_write_frame(format.pointer, p), "av_write_frame", format)
                continue
            }
            guard p.pointee.stream_index == inStream.pointee.index, written < count else { continue }
            guard p.pointee.pts == kept[written].pts else {
                throw FFmpegError(call: "av_read_frame", code: segrec_averror_invaliddata(), context: "\(path): packet \(written) changed between two reads")
            }
            p.pointee.dts = presented[written] - reorderDepth
            written += 1
            p.pointee.duration = written == count ? end - lastPresented : durations[p.pointee.pts] ?? 0
            p.pointee.stream_index = outStream.pointee.index
            p.pointee.pos = -1
            try checkIO(av_write_frame(format.pointer, p), "av_write_frame", format)
        }
        return (written, audioWritten)
    }

    /// Bytes of the copy written between two starts of their writeback
    /// (``FileAVIOContext/startsWritebackEvery``): 4 MiB, so the final `fdatasync` of a
    /// 1080p segment (tens of MiB) waits for a few MiB instead of all of them.
    static let writebackChunkBytes: Int64 = 4 << 20

    /// `av_write_trailer` failed because the room ``MoovRoom`` reserved was too small.
    private struct MoovRoomTooSmall: Error {}

    /// ``MoovRoom/bytes(tracks:fixed:)`` for the copy's sample tables: decode times
    /// `P[k] − S`, durations `P[k+1] − P[k]` (the last `end − P.last`), composition offsets
    /// `p_k − (P[k] − S)`; the audio's as written (each packet until the next, the last
    /// until `audioEnd`). Nil when it exceeds what `moov_size` takes (`Int32.max`).
    private static func moovRoomBytes(
        input: InputFormatContext, video: UnsafeMutablePointer<AVStream>, kept: ArraySlice<PacketTiming>, presented: [Int64], reorderDepth: Int64, end: Int64,
        audio: UnsafeMutablePointer<AVStream>?, audioPackets: ArraySlice<PacketTiming>, audioEnd: Int64?
    ) -> Int? {
        var tracks = [
            MoovRoom.Track(
                samples: kept.count, durationRuns: MoovRoom.runs(zip(presented.dropFirst(), presented).map { $0 - $1 } + [end - (presented.last ?? 0)]),
                offsetRuns: MoovRoom.runs(zip(kept, presented).map { $0.pts - ($1 - reorderDepth) }))
        ]
        var streams = [video]
        var metadata = [input.pointer.pointee.metadata, video.pointee.metadata]
        if let audio, let last = audioPackets.last {
            let ends = audioPackets.dropFirst().map(\.pts) + [audioEnd ?? (last.pts + max(last.duration, 1))]
            tracks.append(
                MoovRoom.Track(
                    samples: audioPackets.count, durationRuns: MoovRoom.runs(zip(ends, audioPackets).map { $0 - $1.pts }),
                    offsetRuns: MoovRoom.runs(audioPackets.map { $0.pts - $0.dts })))
            streams.append(audio)
            metadata.append(audio.pointee.metadata)
        }
        let bytes = MoovRoom.bytes(tracks: tracks, fixed: MoovRoom.fixedBytes(streams: streams, metadata: metadata))
        return bytes <= Int(Int32.max) ? bytes : nil
    }

    /// `avformat_write_header` with `moov_size` (``MoovRoom``, bytes), or with
    /// `movflags=faststart` when `moovRoom` is nil.
    private static func writeHeader(_ format: OutputFormatContext, moovRoom: Int?) throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if let moovRoom {
            try check(av_dict_set(&options, "moov_size", String(moovRoom), 0), "av_dict_set", context: "moov_size")
        } else {
            try check(av_dict_set(&options, "movflags", "faststart", 0), "av_dict_set", context: "movflags")
        }
        try checkIO(avformat_write_header(format.pointer, &options), "avformat_write_header", format)
    }

    /// Checks an FFmpeg result; a write failure of our own file wins over FFmpeg's echo of it.
    static func checkIO(_ code: Int32, _ call: String, _ format: OutputFormatContext) throws {
        if let failure = format.file?.failure { throw failure }
        try check(code, call, context: format.path)
    }

    /// The first stream whose `codec_type` is video.
    static func videoStream(of input: InputFormatContext, path: String) throws(FFmpegError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = input.streams.first(where: { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }) else {
            throw FFmpegError(call: "avformat_find_stream", code: segrec_averror_stream_not_found(), context: path)
        }
        return stream
    }

    /// Copies what the file says about itself: the recording date (`creation_time`), place
    /// (`location`) and
    /// writing application (`encoder`) of the file, the stream's encoder (`encoder`, the
    /// sample entry's compressor name) and pixel aspect ratio (`pasp`). The colour
    /// description travels in the codec parameters (`colr`).
    static func copyTags(
        from input: InputFormatContext, stream inStream: UnsafeMutablePointer<AVStream>, to format: OutputFormatContext,
        stream outStream: UnsafeMutablePointer<AVStream>, context: String
    ) throws(FFmpegError) {
        for key in ["creation_time", "encoder", "location"] {
            if let entry = av_dict_get(input.pointer.pointee.metadata, key, nil, 0) {
                try check(av_dict_set(&format.pointer.pointee.metadata, key, entry.pointee.value, 0), "av_dict_set", context: "\(context): \(key)")
            }
        }
        if let entry = av_dict_get(inStream.pointee.metadata, "encoder", nil, 0) {
            try check(av_dict_set(&outStream.pointee.metadata, "encoder", entry.pointee.value, 0), "av_dict_set", context: "\(context): stream encoder")
        }
        let sar = inStream.pointee.sample_aspect_ratio
        if sar.num > 0, sar.den > 0 {
            outStream.pointee.sample_aspect_ratio = sar
            if outStream.pointee.codecpar.pointee.sample_aspect_ratio.num == 0 { outStream.pointee.codecpar.pointee.sample_aspect_ratio = sar }
        }
    }

    /// Copies every stream side data entry (`AV_PKT_DATA_DISPLAYMATRIX`, …).
    static func copySideData(
        from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>, context: String, skipping skipped: AVPacketSideDataType? = nil
    ) throws(FFmpegError) {
        for i in 0..<Int(input.pointee.nb_side_data) {
            let entry = input.pointee.side_data[i]
            if let skipped, entry.type == skipped { continue }
            guard let data = av_stream_new_side_data(output, entry.type, entry.size) else {
                throw FFmpegError(call: "av_stream_new_side_data", code: segrec_averror_enomem(), context: context)
            }
            data.update(from: entry.data, count: entry.size)
        }
    }
}
