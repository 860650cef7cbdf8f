import CFFmpeg

/// Continuous sound encoded once into AAC-LC packets (libavcodec's `aac`, through
/// ``AudioEncoder``) for the exports that carry audio across the recording's files: the HLS
/// export shares one such stream among its media segments, so a discontinuity between files
/// costs no sample (the encoder primes once, at the start, not at every file).
///
/// Timing, in samples (time base `1/sampleRate`): the encoder's priming packet (its output
/// is the 1024 samples before the first one given) is left out, because a fragmented MP4
/// cannot hide it (FFmpeg 5.1 ignores a fragmented file's edit list for skipping, and
/// `tfdt` cannot be negative). Packet `j` then has pts `j · frameSize`: the sample at pts
/// `t` is the `t`-th sample given, and the last packet's duration ends the stream at
/// exactly ``sampleCount``. The price: a decoder starting at the first packet lacks the
/// priming packet's half of the overlap-add, so the first `frameSize` samples (21.3 ms at
/// 48 kHz) come out attenuated; every later sample is the encoder's.
///
/// Not thread-safe: one owner (an export).
package final class EncodedAudioTrack {
    /// Sample frames per second (the packets' time base is `1/sampleRate`).
    package let sampleRate: Int
    /// Channels.
    package let channelCount: Int
    /// Sample frames encoded: the stream's length.
    package let sampleCount: Int64
    /// The packets in order, pts and dts in samples from 0, each with its duration.
    let packets: [Packet]
    /// The encoder's stream parameters (codec, extradata), copied into each output stream.
    let parameters: UnsafeMutablePointer<AVCodecParameters>

    /// Encodes `pcm` (its channel count must be `settings.channelCount`).
    /// - Throws: ``FFmpegError`` from the encoder (e.g. an unsupported rate).
    package convenience init(encoding pcm: AudioPCMBuffer, settings: AudioTrackSettings) throws {
        try self.init(settings: settings, pieces: 1) { _ throws(FFmpegError) in pcm }
    }

    /// Encodes the sound made of `pieces` buffers one after the other, asking `piece(i)` for
    /// each in turn and letting it go once encoded, so only one piece (a segment's sound)
    /// and the packets are held at a time; each piece's channel count must be
    /// `settings.channelCount`.
    /// - Throws: ``FFmpegError`` from the encoder, or what `piece` throws.
    package init<Failure: Error>(settings: AudioTrackSettings, pieces: Int, piece: (Int) throws(Failure) -> AudioPCMBuffer) throws {
        let encoder = try AudioEncoder(settings: settings, globalHeader: true)
        var all: [Packet] = []
        var total: Int64 = 0
        for index in 0..<pieces {
            let pcm = try piece(index)
            precondition(pcm.channelCount == settings.channelCount, "channel count")
            total += Int64(pcm.frameCount)
            all += try encoder.encode(pcm)
        }
        all += try encoder.flush()
        guard let parameters = avcodec_parameters_alloc() else { throw FFmpegError(call: "avcodec_parameters_alloc", code: segrec_averror_enomem()) }
        let copied = avcodec_parameters_from_context(parameters, encoder.context.pointer)
        guard copied >= 0 else {
            var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&p)
            throw FFmpegError(call: "avcodec_parameters_from_context", code: copied, context: "aac")
        }
        let kept = all.filter { $0.pointer.pointee.pts >= 0 && $0.pointer.pointee.pts < total }
        for (index, packet) in kept.enumerated() {
            let p = packet.pointer
            p.pointee.dts = p.pointee.pts
            let next = index + 1 < kept.count ? kept[index + 1].pointer.pointee.pts : total
            p.pointee.duration = next - p.pointee.pts
        }
        self.sampleRate = settings.sampleRate
        self.channelCount = settings.channelCount
        self.sampleCount = total
        self.packets = kept
        self.parameters = parameters
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&p)
    }

    /// The indices of the packets whose pts lies in `[from, to)` samples.
    package func packets(from: Int64, to: Int64) -> Range<Int> {
        let lower = packets.firstIndex { $0.pointer.pointee.pts >= from } ?? packets.count
        let upper = packets.firstIndex { $0.pointer.pointee.pts >= to } ?? packets.count
        return lower..<max(lower, upper)
    }

    /// Packets in the stream.
    package var packetCount: Int { packets.count }
}

/// The packets of an ``EncodedAudioTrack`` that one output file carries: `range` of its
/// packets, their pts shifted by `shift` samples (0 when the track is already on the
/// output's timeline), the last one's duration cut to end at `end`.
package struct AudioPacketSlice {
    /// The encoded stream.
    package let track: EncodedAudioTrack
    /// Which of its packets.
    package let range: Range<Int>
    /// Samples added to each pts and dts.
    package let shift: Int64
    /// Where the file's sound ends (samples, after the shift; nil: where its last packet
    /// does): the last packet's declared duration is cut to end there, at least 1, so a
    /// track never lasts past its file. A player that lays the files of an HLS playlist
    /// end to end at each discontinuity (Chromium) would otherwise add the AAC frame's
    /// overhang, up to 1023 samples, at every one; the samples themselves are all still
    /// there for a decoder, the next file's first packet following on.
    package let end: Int64?

    /// A slice of `track`.
    package init(track: EncodedAudioTrack, range: Range<Int>, shift: Int64 = 0, end: Int64? = nil) {
        self.track = track
        self.range = range
        self.shift = shift
        self.end = end
    }
}
