import CFFmpeg
import SegRecTime

/// Remuxes one finished segment MP4 into the two files an HLS fMP4 rendition needs: an
/// initialization section (`ftyp` + `moov` with an empty sample table) and one media
/// segment (`moof` + `mdat` pairs, one at each keyframe and at least every 0.25 s, so its
/// video and sound interleave). A stream copy with libavformat's `mp4` muxer
/// (`movflags=frag_keyframe+empty_moov+default_base_moof+skip_trailer+frag_discont`, `frag_duration`),
/// never a re-encode, the way FFmpeg's own `hls` muxer writes `hls_segment_type=fmp4`.
///
/// Two things make a sequence of such pairs play as one stream in players that keep one
/// demuxer across `EXT-X-MAP` changes (FFmpeg's `hls` demuxer skips a second `moov`):
/// - parameter sets travel in-band: `h264_mp4toannexb` / `hevc_mp4toannexb` repeat the
///   SPS/PPS (and VPS) before every keyframe, and the sample entry says so (`avc3`,
///   `hev1` instead of `avc1`, `hvc1`), so a decoder sees every size change in the stream;
/// - timestamps continue: every pts is shifted by `offset` (the segment's start on the
///   playlist's timeline), and decode times stay increasing across files: a file whose
///   B-frames start decoding before its first picture (dts < pts) would overlap the previous
///   file's last decode times, so its leading dts are raised to one tick after
///   `decodeFloor` (still ≤ their pts). The time base is refined to at least 90 kHz
///   (an exact integer multiple) so there are ticks to spare.
///
/// Those demuxers also keep the first file's display matrix (the `hls` one none at all), so
/// an H.264 file whose matrix turns the picture says so in band too: `h264_metadata`
/// (`display_orientation=insert`) writes a display orientation SEI into every access unit
/// from the packet's display matrix, which FFmpeg's decoder hands each frame
/// (`AV_FRAME_DATA_DISPLAYMATRIX`): ffmpeg's autorotate and mpv turn each frame by its own.
package enum FragmentedRemuxer {
    /// What ``remux(input:initOutput:mediaOutput:offset:end:decodeFloor:)`` wrote.
    package struct Result: Sendable, Equatable {
        /// Packets (frames) copied.
        package let packets: Int
        /// Bytes of the initialization section and of the media segment.
        package let initBytes: Int64, mediaBytes: Int64
        /// The sample entry written, e.g. `avc3`.
        let codecTag: String
        /// Decode time of the last packet written (pass it as the next file's `decodeFloor`).
        package let lastDecodeTime: MediaTime
        /// Packets and bytes of each media segment written, in order (one entry without
        /// cuts; none when `mediaOutput` is nil).
        package let mediaSegments: [(packets: Int, bytes: Int64)]
        /// Audio packets written (0 without `audio`).
        package let audioPackets: Int

        package static func == (a: Result, b: Result) -> Bool {
            a.packets == b.packets && a.audioPackets == b.audioPackets && a.initBytes == b.initBytes && a.mediaBytes == b.mediaBytes && a.codecTag == b.codecTag
                && a.lastDecodeTime == b.lastDecodeTime && a.mediaSegments.map(\.packets) == b.mediaSegments.map(\.packets)
                && a.mediaSegments.map(\.bytes) == b.mediaSegments.map(\.bytes)
        }
    }

    /// Where a file's media segments start: cut only before closed keyframes (no picture after
    /// them in decode order is shown before them, so each media segment decodes on its own), each as long as it can be without its presentation span passing the
    /// target, and longer only where one keyframe interval alone is longer.
    package struct MediaSegmentPlan: Sendable, Equatable {
        /// The file's time base (`num/den` seconds per tick).
        package let timeBase: (num: Int32, den: Int32)
        /// Decode-order packet indices where a media segment after the first starts
        /// (keyframes), increasing.
        package let cuts: [Int]
        /// Each media segment's presentation start: the smallest pts among its packets
        /// (file ticks); with open GOPs (leading pictures after a keyframe) that is a leading
        /// picture's, not the keyframe's. The segment lasts until the next one's start (the
        /// last one until the file's end): its presentation span, whatever the decode order.
        package let starts: [Int64]
        /// Packets in the file.
        package let packets: Int

        package static func == (a: MediaSegmentPlan, b: MediaSegmentPlan) -> Bool {
            a.timeBase == b.timeBase && a.cuts == b.cuts && a.starts == b.starts && a.packets == b.packets
        }
    }

    /// Reads every packet's pts and keyframe flag of `path`'s video stream (no decoding) and
    /// plans its media segments for a target of `target` (greedy: a keyframe interval joins
    /// the current segment while the segment's presentation span, up to the next interval's
    /// start or the file's `end`, stays within `target`).
    /// - Parameters:
    ///   - end: the file's presentation end on its own timeline (the manifest's
    ///     `sessionEnd − sessionStart`).
    /// - Throws: ``FFmpegError`` when the file cannot be read or a packet has no pts.
    package static func planMediaSegments(path: String, target: MediaTime, end: MediaTime) throws(FFmpegError) -> MediaSegmentPlan {
        FFmpegLog.silence()
        let source = try InputFormatContext(reading: FileAVIOContext(reading: path))
        let stream = try FaststartRemuxer.videoStream(of: source, path: path)
        let timeBase = stream.pointee.time_base
        let packet = try Packet()
        // Keyframe intervals: (first packet index, the keyframe's pts, smallest pts).
        var intervals: [(index: Int, key: Int64, start: Int64)] = []
        var count = 0
        while true {
            let status = av_read_frame(source.pointer, packet.pointer)
            if status == segrec_averror_eof() { break }
            try check(status, "av_read_frame", context: path)
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == stream.pointee.index else { continue }
            let pts = packet.pointer.pointee.pts
            guard pts != segrec_av_nopts_value() else {
                throw FFmpegError(call: "av_read_frame", code: segrec_averror_invaliddata(), context: "\(path): packet \(count) has no timestamp")
            }
            if intervals.isEmpty || (packet.pointer.pointee.flags & AV_PKT_FLAG_KEY) != 0 {
                intervals.append((count, pts, pts))
            } else {
                intervals[intervals.count - 1].start = min(intervals[intervals.count - 1].start, pts)
            }
            count += 1
        }
        // Only a closed keyframe starts a media segment: one whose interval has no leading
        // picture (pts before the keyframe's, e.g. RASL after an HEVC CRA), which would not
        // decode without the media segment before. An open one joins the interval before.
        var groups: [(index: Int, start: Int64)] = []
        for interval in intervals {
            if groups.isEmpty || interval.start >= interval.key {
                groups.append((interval.index, interval.start))
            } else {
                groups[groups.count - 1].start = min(groups[groups.count - 1].start, interval.start)
            }
        }
        let endTicks = try ticks(end, in: timeBase, context: path)
        let targetTicks = try ticks(target, in: timeBase, context: path)
        var cuts: [Int] = []
        var starts: [Int64] = []
        var current = 0
        for next in groups.indices.dropFirst() {
            let after = next + 1 < groups.count ? groups[next + 1].start : endTicks
            if after - groups[current].start > targetTicks {
                starts.append(groups[current].start)
                cuts.append(groups[next].index)
                current = next
            }
        }
        if !groups.isEmpty { starts.append(groups[current].start) }
        return MediaSegmentPlan(timeBase: (timeBase.num, timeBase.den), cuts: cuts, starts: starts, packets: count)
    }

    /// The libavcodec name of the first video stream's codec (`h264`, `hevc`, …).
    /// - Throws: ``FFmpegError`` when the file cannot be opened or has no video stream.
    package static func codecName(path: String) throws(FFmpegError) -> String {
        FFmpegLog.silence()
        let source = try InputFormatContext(reading: FileAVIOContext(reading: path))
        let stream = try FaststartRemuxer.videoStream(of: source, path: path)
        return String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
    }

    /// Writes `initOutput` and `mediaOutput` (both created exclusively) from `input`; with
    /// `mediaOutput` nil, one fragmented MP4 holding both at `initOutput` (a standalone file
    /// with in-band parameter sets, for FFmpeg's concat demuxer).
    ///
    /// - Parameters:
    ///   - offset: added to every pts and dts (rounded once to the output time base, half
    ///     away from zero).
    ///   - decodeFloor: every dts written is after it (nil: ≥ 0); leading dts below it are
    ///     raised one tick at a time, never above their pts.
    ///   - end: the file's presentation end on its own timeline (the manifest's
    ///     `sessionEnd − sessionStart`); the last sample in decode order lasts until the
    ///     next picture on screen after it, or until `end` when it is the last one shown,
    ///     so the file's presentation (pts + duration) ends exactly at `end`, B-frames or not.
    /// - Throws: ``FFmpegError`` (`AVERROR_INVALIDDATA` for a packet without timestamps, a
    ///   negative decode time or an end before the last packet), or what
    ///   ``FileAVIOContext/init(creating:sizeLimit:)`` throws when an output exists. On a
    ///   throw (including a dts that cannot be raised without passing its pts),
    ///   files created here are deleted.
    ///   - timeBase: the output time base (`1/den`); nil: the input's, refined to ≥ 90 kHz
    ///     (``refined(_:context:)``). HLS export passes one common time base for every file
    ///     (``commonTimeBase(of:)``), because FFmpeg's `hls` demuxer reads every file's
    ///     ticks in the first initialization section's time base. Input ticks are rescaled
    ///     once (`av_rescale_q`-like, half away from zero): exact when `den` is a multiple
    ///     of the input's.
    ///   - cuts: decode-order packet indices (keyframes, increasing) before which a new media
    ///     segment starts (``MediaSegmentPlan/cuts``); packet `cuts[i]` and those after it
    ///     go to `moreMediaOutputs[i]`. The fragment before each cut is flushed first
    ///     (`av_write_frame(NULL)`), so every media segment is whole `moof` + `mdat` pairs.
    ///   - audio: AAC packets to carry beside the video (a second track, time base
    ///     `1/sampleRate`, its pts as given plus the slice's shift: already on the output
    ///     timeline, `offset` is not added), interleaved by time: before each video packet
    ///     the audio packets that start before its decode time, before each cut those that
    ///     start before the next media segment's first picture (so a media segment holds the
    ///     sound of its own span, to the AAC frame), the rest at the end. The input's own
    ///     audio is never copied (nil: the output has no sound).
    ///   - rotationInBandOnly: an H.264 file's display matrix goes in band only (its SEI),
    ///     not into the output's `tkhd` (a concat list's first file, whose matrix FFmpeg's
    ///     concat demuxer would apply to every file without one in band).
    package static func remux(
        input: String, initOutput: String, mediaOutput: String?, offset: MediaTime, end: MediaTime, decodeFloor: MediaTime?,
        timeBase commonTimeBase: AVRational? = nil, cuts: [Int] = [], moreMediaOutputs: [String] = [], audio: AudioPacketSlice? = nil,
        rotationInBandOnly: Bool = false
    ) throws -> Result {
        precondition(cuts.count == moreMediaOutputs.count && (cuts.isEmpty || mediaOutput != nil), "one output per cut")
        FFmpegLog.silence()
        let source = try InputFormatContext(reading: FileAVIOContext(reading: input))
        let inStream = try FaststartRemuxer.videoStream(of: source, path: input)
        let inputTimeBase = inStream.pointee.time_base
        let timeBase = try commonTimeBase ?? refined(inputTimeBase, context: input).0
        let rescale = Rescale(from: inputTimeBase, to: timeBase)
        let offsetTicks = try ticks(offset, in: timeBase, context: input)
        let endTicks = try ticks(end, in: timeBase, context: input)
        let floorTicks =
            try decodeFloor.map { t throws(FFmpegError) in try ticks(t, in: timeBase, context: input, rounding: .roundTowardNegativeInfinity) } ?? -1

        let (filter, tag) = try inBandParameterSets(of: inStream, timeBase: inputTimeBase, input: input)

        let format = try OutputFormatContext(formatName: "mp4", path: mediaOutput ?? initOutput)
        let outStream = try addVideoStream(
            to: format, from: inStream, filter: filter, tag: tag, timeBase: timeBase, keepingDisplayMatrix: !(rotationInBandOnly && codecIsH264(inStream)))
        let audioWriter = try audio.map { slice throws(FFmpegError) in try AudioInterleaver(slice: slice, format: format, videoTimeBase: timeBase) }

        var created: [String] = []
        do {
            // ftyp + moov into the initialization section.
            format.attach(try FileAVIOContext(creating: initOutput))
            created.append(initOutput)
            try writeHeader(format, timeBase: timeBase)
            avio_flush(format.pointer.pointee.pb)
            if let failure = format.file?.failure { throw failure }
            let initBytes = format.file.flatMap { SafeFile.size(of: $0.fd) } ?? 0
            if let mediaOutput {
                // moof + mdat pairs into the media segment.
                try format.closeFile()
                format.attach(try FileAVIOContext(creating: mediaOutput))
                created.append(mediaOutput)
            }
            var segments: [(packets: Int, bytes: Int64)] = []
            var segmentStart = 0
            let (packets, lastDTS) = try copyPackets(
                from: source, stream: inStream, filter: filter, to: format, outStream: outStream,
                timing: Timing(rescale: rescale, offset: offsetTicks, end: endTicks, floor: floorTicks), path: input, cuts: cuts, audio: audioWriter
            ) { cut, written, nextPTS in
                // Before packet cuts[cut]: the fragment so far (with the sound before the
                // next picture) into the current file, then the next file.
                try audioWriter?.write(before: nextPTS)
                try FaststartRemuxer.checkIO(av_write_frame(format.pointer, nil), "av_write_frame", format)
                if let failure = format.file?.flush() { throw failure }
                segments.append((written - segmentStart, format.file.flatMap { SafeFile.size(of: $0.fd) } ?? 0))
                segmentStart = written
                try format.closeFile()
                format.attach(try FileAVIOContext(creating: moreMediaOutputs[cut]))
                created.append(moreMediaOutputs[cut])
            }
            try audioWriter?.write(before: nil)
            try FaststartRemuxer.checkIO(av_write_trailer(format.pointer), "av_write_trailer", format)
            if let failure = format.file?.flush() { throw failure }
            let lastBytes = (format.file.flatMap { SafeFile.size(of: $0.fd) } ?? 0) - (mediaOutput == nil ? initBytes : 0)
            if mediaOutput != nil { segments.append((packets - segmentStart, lastBytes)) }
            let mediaBytes = mediaOutput == nil ? lastBytes : segments.reduce(0) { $0 + $1.bytes }
            try format.closeFile()
            let tagText = fourCC(outStream.pointee.codecpar.pointee.codec_tag)
            return Result(
                packets: packets, initBytes: initBytes, mediaBytes: mediaBytes, codecTag: tagText,
                lastDecodeTime: MediaTime(value: lastDTS, timescale: timeBase.den), mediaSegments: segments, audioPackets: audioWriter?.written ?? 0)
        } catch {
            try? format.closeFile()
            for path in created { SafeFile.remove(path: path) }
            throw error
        }
    }

    /// How input timestamps become output ones: `rescale(ts) + offset` (output time base),
    /// the file's end on its own timeline, and the decode floor (exclusive), all in output ticks.
    struct Timing { let rescale: Rescale, offset: Int64, end: Int64, floor: Int64 }

    /// Input ticks to output ticks: `ts · num / den` rounded half away from zero (exact
    /// when `den` divides `ts · num`), the same value `av_rescale_q(ts, from, to)` gives.
    struct Rescale {
        let num: Int128, den: Int128

        init(from input: AVRational, to output: AVRational) {
            num = Int128(input.num) * Int128(output.den)
            den = Int128(input.den) * Int128(output.num)
        }

        func callAsFunction(_ ticks: Int64) -> Int64? {
            ExactArithmetic.multiplyDivide(Int128(ticks), num, den, rounding: .default).flatMap { Int64(exactly: $0) }
        }
    }

    /// The time base of `path`'s first video stream.
    /// - Throws: ``FFmpegError`` when the file cannot be opened or has no video stream.
    package static func timeBase(path: String) throws(FFmpegError) -> AVRational {
        FFmpegLog.silence()
        let source = try InputFormatContext(reading: FileAVIOContext(reading: path))
        return try FaststartRemuxer.videoStream(of: source, path: path).pointee.time_base
    }

    /// One output time base `1/den` for files with time bases `timeBases`, so that every
    /// file's ticks stay exact: `den` is the least common multiple of their reduced
    /// denominators, raised by the smallest integer factor to ≥ 90 kHz. When that does not
    /// fit in `Int32`, the fallback is `1/90000` (each timestamp rounded once, half away
    /// from zero; decode times are then kept increasing by the decode floor, and a file
    /// whose frames are closer than one tick is refused with `AVERROR_INVALIDDATA`).
    /// Returns the time base and whether it is exact for every file.
    package static func commonTimeBase(of timeBases: [AVRational]) -> (timeBase: AVRational, exact: Bool) {
        let fallback = (AVRational(num: 1, den: 90000), false)
        var lcm: Int128 = 1
        for t in timeBases {
            guard t.num > 0, t.den > 0 else { return fallback }
            let den = Int128(t.den) / ExactArithmetic.gcd(Int128(t.num), Int128(t.den))
            lcm = lcm / ExactArithmetic.gcd(lcm, den) * den
            guard lcm <= Int128(Int32.max) else { return fallback }
        }
        let raised = lcm >= 90000 ? lcm : lcm * ((90000 + lcm - 1) / lcm)
        guard let den = Int32(exactly: raised) else { return fallback }
        return (AVRational(num: 1, den: den), true)
    }

    /// Reads, filters and writes every packet of `stream`, holding one back so that each
    /// gets its decode duration (next dts − dts) and the last one lasts until `end`.
    /// Returns the packets written and the last dts.
    private static func copyPackets(
        from source: InputFormatContext, stream: UnsafeMutablePointer<AVStream>, filter: BitstreamFilter?, to format: OutputFormatContext,
        outStream: UnsafeMutablePointer<AVStream>, timing: Timing, path: String, cuts: [Int] = [], audio: AudioInterleaver? = nil,
        cut: (_ index: Int, _ written: Int, _ nextPTS: Int64) throws -> Void = { _, _, _ in }
    ) throws -> (Int, Int64) {
        var nextCut = 0
        let read = try Packet()
        let filtered = try Packet()
        let held = try Packet()
        var holding = false
        var written = 0
        var lastDTS = timing.floor
        var presented = Set<Int64>()
        let matrix = stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_H264 ? displayMatrix(of: stream) : nil
        func emit(_ next: UnsafeMutablePointer<AVPacket>?) throws {
            if let next {
                // Output timing: refine, shift, then keep decode times increasing.
                guard let pts = timing.rescale(next.pointee.pts), let dts = timing.rescale(next.pointee.dts) else {
                    throw FFmpegError(call: "av_rescale_q", code: segrec_averror_einval(), context: "\(path): packet \(written) overflows the output time base")
                }
                next.pointee.pts = pts + timing.offset
                next.pointee.dts = dts + timing.offset
                guard presented.insert(next.pointee.pts).inserted else {
                    throw FFmpegError(
                        call: "av_write_frame", code: segrec_averror_invaliddata(),
                        context: "\(path): packet \(written + (holding ? 1 : 0)) has the same presentation time as an earlier one in the output time base")
                }
                let raised = max(next.pointee.dts, lastDTS + 1)
                guard raised <= next.pointee.pts else {
                    throw FFmpegError(
                        call: "av_write_frame", code: segrec_averror_invaliddata(),
                        context:
                            "\(path): packet \(written + (holding ? 1 : 0)) cannot decode after the previous file's last frame (dts \(raised) > pts \(next.pointee.pts))"
                    )
                }
                next.pointee.dts = raised
                lastDTS = raised
            }
            if holding {
                let h = held.pointer
                if let next {
                    h.pointee.duration = next.pointee.dts - h.pointee.dts
                } else {
                    guard timing.end + timing.offset > h.pointee.dts, timing.end + timing.offset > h.pointee.pts else {
                        throw FFmpegError(
                            call: "av_write_frame", code: segrec_averror_invaliddata(),
                            context: "\(path): segment end \(timing.end) is not after the last packet (pts \(h.pointee.pts - timing.offset))")
                    }
                    // Last in decode order: it lasts until the next picture on screen (a
                    // B-frame's successor is an earlier-decoded P) or the end, so no
                    // picture is shown past `end` (a decode-order duration would run the
                    // B-frame delay past it).
                    let end = timing.end + timing.offset
                    guard let latest = presented.max(), latest < end else {
                        throw FFmpegError(
                            call: "av_write_frame", code: segrec_averror_invaliddata(),
                            context: "\(path): segment end \(timing.end) is not after the last picture")
                    }
                    h.pointee.duration = (presented.filter { $0 > h.pointee.pts }.min() ?? end) - h.pointee.pts
                }
                try audio?.write(before: h.pointee.dts)
                try FaststartRemuxer.checkIO(av_write_frame(format.pointer, h), "av_write_frame", format)
                written += 1
                holding = false
            }
            if let next, nextCut < cuts.count, written == cuts[nextCut] {
                try cut(nextCut, written, next.pointee.pts)
                nextCut += 1
            }
            if let next {
                av_packet_move_ref(held.pointer, next)
                holding = true
            }
        }
        func drain() throws {
            guard let filter else { return }
            while try filter.receive(into: filtered.pointer) { try emit(filtered.pointer) }
        }
        let r = read.pointer
        while true {
            let status = av_read_frame(source.pointer, r)
            if status == segrec_averror_eof() { break }
            try check(status, "av_read_frame", context: path)
            defer { av_packet_unref(r) }
            guard r.pointee.stream_index == stream.pointee.index else { continue }
            guard r.pointee.pts != segrec_av_nopts_value(), r.pointee.dts != segrec_av_nopts_value() else {
                throw FFmpegError(call: "av_read_frame", code: segrec_averror_invaliddata(), context: "\(path): packet \(written) has no timestamp")
            }
            r.pointee.stream_index = outStream.pointee.index
            r.pointee.pos = -1
            if let filter {
                if let matrix {
                    // What h264_metadata turns into the access unit's display orientation SEI.
                    guard let data = av_packet_new_side_data(r, AV_PKT_DATA_DISPLAYMATRIX, matrix.count) else {
                        throw FFmpegError(call: "av_packet_new_side_data", code: segrec_averror_enomem(), context: path)
                    }
                    data.update(from: matrix, count: matrix.count)
                }
                try filter.send(r)
                try drain()
            } else {
                try emit(r)
            }
        }
        if let filter {
            try filter.send(nil)
            try drain()
        }
        try emit(nil)
        return (written, lastDTS)
    }

    /// The output time base: the input's when it is `1/den` with `den` ≥ 90000, else
    /// `1/(den·m)` with the smallest `m` reaching 90 kHz; `factor` = `num·m` turns input
    /// ticks into output ticks exactly.
    static func refined(_ timeBase: AVRational, context: String) throws(FFmpegError) -> (AVRational, Int64) {
        let den = Int64(timeBase.den)
        let num = Int64(timeBase.num)
        guard den > 0, num > 0 else {
            throw FFmpegError(call: "avformat_open_input", code: segrec_averror_invaliddata(), context: "\(context): time base \(num)/\(den)")
        }
        let m = den >= 90000 ? 1 : (90000 + den - 1) / den
        guard let outDen = Int32(exactly: den * m) else {
            throw FFmpegError(call: "av_rescale", code: segrec_averror_einval(), context: "\(context): time base \(num)/\(den)")
        }
        return (AVRational(num: 1, den: outDen), num * m)
    }

    /// `avformat_write_header` with the fragmenting flags; no edit list and no shifting of
    /// timestamps (the offset is the point), so `tfdt` is the first dts.
    /// The longest fragment inside a media segment, microseconds (`frag_duration`).
    static let fragmentDuration = 250_000

    private static func writeHeader(_ format: OutputFormatContext, timeBase: AVRational) throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        try check(
            av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof+skip_trailer+frag_discont", 0), "av_dict_set", context: "movflags")
        // A fragment at each keyframe and at least every 0.25 s: a media segment's video and
        // sound interleave by time (a `moof` + `mdat` holds one track's samples after the
        // other's), so a player reading it in order (GStreamer's hlsdemux from a local file)
        // never waits behind a whole GOP of pictures for the sound.
        try check(av_dict_set(&options, "frag_duration", "\(fragmentDuration)", 0), "av_dict_set", context: "frag_duration")
        try check(av_dict_set(&options, "use_editlist", "0", 0), "av_dict_set", context: "use_editlist")
        try check(av_dict_set(&options, "avoid_negative_ts", "disabled", 0), "av_dict_set", context: "avoid_negative_ts")
        if timeBase.num == 1 { try check(av_dict_set(&options, "movie_timescale", "\(timeBase.den)", 0), "av_dict_set", context: "movie_timescale") }
        try FaststartRemuxer.checkIO(avformat_write_header(format.pointer, &options), "avformat_write_header", format)
    }

    /// `time` in ticks of `timeBase`, rounded once (half away from zero by default).
    private static func ticks(_ time: MediaTime, in timeBase: AVRational, context: String, rounding: RoundingMethod = .default) throws(FFmpegError) -> Int64 {
        guard
            let value = ExactArithmetic.multiplyDivide(
                Int128(time.value), Int128(timeBase.den), Int128(time.timescale) * Int128(timeBase.num), rounding: rounding), let ticks = Int64(exactly: value)
        else { throw FFmpegError(call: "av_rescale", code: segrec_averror_einval(), context: "\(context): \(time) overflows the time base") }
        return ticks
    }

    /// `avc3` for a little-endian FourCC.
    private static func fourCC(_ tag: UInt32) -> String { String((0..<4).map { Character(Unicode.Scalar(UInt8((tag >> (8 * $0)) & 0xFF))) }) }
}
