// EncodedPicture: one demuxed video packet handed to a writer as it is (`--copy`), and the stream parameters a copied segment opens with.
import CFFmpeg
import SegRecTime

/// One picture as its sender encoded it: a demuxed video packet (its data never decoded
/// nor re-encoded), with the size the codec's parser read at its keyframe and its own
/// timestamps. What `segrec record --copy` hands the writer instead of pixels
/// (``FramePixels/encoded(_:)``).
///
/// Not `Sendable` (it owns an `AVPacket`): it moves from the reader to the segment's writer
/// as a `sending` value, like ``DecodedFrameBuffer``.
package final class EncodedPicture {
    /// The packet: data, pts, dts (input time base ticks, after the source's corrections),
    /// flags. Side data is removed before it is written.
    let packet: Packet
    /// The size the parser read at the last keyframe (the picture's decoded size).
    package let dimensions: VideoDimensions
    /// Whether the packet is a keyframe (`AV_PKT_FLAG_KEY`): a copied segment starts only at one.
    package let isKeyframe: Bool
    /// The input stream's time base.
    package let timeBase: (num: Int32, den: Int32)
    /// The stream's codec parameters with the parameter sets in force at this keyframe (its
    /// extradata): what a segment that starts with this picture opens with. Nil for a
    /// picture that is not a keyframe.
    package let parameters: EncodedStreamParameters?
    /// The parameters of the audio stream copied beside it (`--copy` of sound MP4 takes),
    /// for a keyframe: what a segment that starts with it gives its audio track. Nil otherwise.
    package let audioParameters: EncodedStreamParameters?
    /// Whether a copied segment must start at this keyframe although its size is the open
    /// one's: the first keyframe of a live source's new connection whose stream parameters
    /// (``EncodedStreamParameters/sampleDescription``) differ from those before.
    package var startsNewFile = false

    init(
        packet: consuming sending Packet, dimensions: VideoDimensions, isKeyframe: Bool, timeBase: (num: Int32, den: Int32),
        parameters: consuming sending EncodedStreamParameters?, audioParameters: consuming sending EncodedStreamParameters? = nil
    ) {
        self.packet = packet
        self.dimensions = dimensions
        self.isKeyframe = isKeyframe
        self.timeBase = timeBase
        self.parameters = parameters
        self.audioParameters = audioParameters
    }

    /// A missing timestamp (FFmpeg's `AV_NOPTS_VALUE`).
    package static let noTimestamp = segrec_av_nopts_value()

    /// Presentation time, input ticks (`AV_NOPTS_VALUE` replaced by the source).
    package var pts: Int64 {
        get { packet.pointer.pointee.pts }
        set { packet.pointer.pointee.pts = newValue }
    }

    /// Decode time, input ticks.
    package var dts: Int64 {
        get { packet.pointer.pointee.dts }
        set { packet.pointer.pointee.dts = newValue }
    }

    /// Bytes of the packet's data.
    package var byteCount: Int { Int(packet.pointer.pointee.size) }

    /// A new reference to the same data, owned by nobody else (nil when memory runs out).
    package func referenced() -> sending EncodedPicture? {
        guard let copy = segrec_av_packet_referenced(packet.pointer) else { return nil }
        let made: EncodedPicture
        if let parameters {
            guard let copiedParameters = EncodedStreamParameters.copying(parameters.pointer) else { return nil }
            if let audioParameters {
                guard let copiedAudio = EncodedStreamParameters.copying(audioParameters.pointer) else { return nil }
                made = EncodedPicture(
                    packet: Packet(adopting: copy), dimensions: dimensions, isKeyframe: isKeyframe, timeBase: timeBase, parameters: copiedParameters,
                    audioParameters: copiedAudio)
            } else {
                made = EncodedPicture(
                    packet: Packet(adopting: copy), dimensions: dimensions, isKeyframe: isKeyframe, timeBase: timeBase, parameters: copiedParameters)
            }
        } else {
            made = EncodedPicture(packet: Packet(adopting: copy), dimensions: dimensions, isKeyframe: isKeyframe, timeBase: timeBase, parameters: nil)
        }
        made.startsNewFile = startsNewFile
        return made
    }
}

/// An input stream's codec parameters (`AVCodecParameters`, owned): codec, size, colour
/// description and the extradata (parameter sets) a copied segment's sample description is
/// made from. Not `Sendable`.
package final class EncodedStreamParameters {
    let pointer: UnsafeMutablePointer<AVCodecParameters>

    /// The parameters `parameters` points to, owned from now on.
    init(adopting parameters: consuming sending UnsafeMutablePointer<AVCodecParameters>) { pointer = parameters }

    /// A copy of `parameters` (`avcodec_parameters_copy`) whose extradata is `extradata`
    /// (nil: the same), shared with nothing; nil when memory runs out.
    static func copying(_ parameters: UnsafePointer<AVCodecParameters>, extradata: [UInt8]? = nil) -> sending EncodedStreamParameters? {
        // An array reaches C as a pointer to its elements for the call's duration.
        let bytes = extradata ?? []
        guard let made = segrec_codecpar_copied(parameters, bytes, extradata == nil ? -1 : Int32(bytes.count)) else { return nil }
        return EncodedStreamParameters(adopting: made)
    }

    /// What a track's sample description is made of: the codec, size, sample rate,
    /// channels and extradata (the parameter sets, an AudioSpecificConfig) byte for byte.
    /// Two streams with equal descriptions can share one track.
    package struct SampleDescription: Equatable, Sendable {
        let codec: UInt32
        let width: Int32
        let height: Int32
        let sampleRate: Int32
        let channels: Int32
        let extradata: [UInt8]
    }

    /// These parameters' ``SampleDescription``.
    package var sampleDescription: SampleDescription {
        let p = pointer.pointee
        return SampleDescription(
            codec: p.codec_id.rawValue, width: p.width, height: p.height, sampleRate: p.sample_rate, channels: p.ch_layout.nb_channels,
            extradata: EncodedVideoReader.bytes(p.extradata, Int(p.extradata_size)))
    }

    /// The codec's short name (`h264`, `hevc`, …).
    package var codecName: String { String(cString: avcodec_get_name(pointer.pointee.codec_id)) }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&p)
    }
}

/// One packet of an audio stream copied as sent (`--copy` when the MP4 muxer takes the
/// codec: AAC, Opus, MP3, AC-3, E-AC-3, FLAC, ALAC): its data is never decoded. Not
/// `Sendable` (it owns an `AVPacket`); it moves to the segment's writer as a `sending` value.
package final class EncodedAudioPacket {
    /// The packet (pts, dts and duration in ``timeBase`` ticks).
    let packet: Packet
    /// The input audio stream's time base.
    package let timeBase: (num: Int32, den: Int32)
    /// The stream's sample rate.
    package let sampleRate: Int

    init(packet: consuming sending Packet, timeBase: (num: Int32, den: Int32), sampleRate: Int) {
        self.packet = packet
        self.timeBase = timeBase
        self.sampleRate = sampleRate
    }

    /// Presentation time, input ticks (``EncodedPicture/noTimestamp`` when missing).
    package var pts: Int64 { packet.pointer.pointee.pts != EncodedPicture.noTimestamp ? packet.pointer.pointee.pts : packet.pointer.pointee.dts }

    /// Sample frames it decodes to (its duration at ``sampleRate``; 0 when the demuxer gives none).
    package var sampleCount: Int64 {
        av_rescale_q(packet.pointer.pointee.duration, AVRational(num: timeBase.num, den: timeBase.den), AVRational(num: 1, den: Int32(sampleRate)))
    }

    /// A new reference to the same data, owned by nobody else (nil when memory runs out).
    package func referenced() -> sending EncodedAudioPacket? {
        guard let copy = segrec_av_packet_referenced(packet.pointer) else { return nil }
        return EncodedAudioPacket(packet: Packet(adopting: copy), timeBase: timeBase, sampleRate: sampleRate)
    }
}

/// What ``EncodedVideoReader/nextPacket()`` hands out: a video packet, or a packet of the
/// audio stream copied beside it.
package enum EncodedPacket {
    case video(EncodedPicture)
    case audio(EncodedAudioPacket)
}
