/// Interleaved 32-bit float PCM samples (FFmpeg's `AV_SAMPLE_FMT_FLT`): the payload of an
/// audio sample buffer, like `AVAudioPCMBuffer` with `.pcmFormatFloat32` interleaved.
///
/// Shape: `frameCount × channelCount` values, sample frame by sample frame (`L R L R …` for
/// stereo), each in `-1…1` (full scale, 0 dBFS).
public struct AudioPCMBuffer: Sendable, Hashable {
    /// Channels per sample frame (1 mono, 2 stereo), ≥ 1.
    public let channelCount: Int
    /// The interleaved values; `samples.count` is a multiple of ``channelCount``.
    public var samples: [Float]

    /// A buffer over interleaved `samples` of `channelCount` channels (its count must be a multiple of it).
    public init(channelCount: Int, samples: [Float]) {
        precondition(channelCount >= 1 && samples.count % channelCount == 0, "interleaved samples must fill whole sample frames")
        self.channelCount = channelCount
        self.samples = samples
    }

    /// `frameCount` sample frames of silence.
    public init(silenceOf frameCount: Int, channelCount: Int) {
        self.init(channelCount: channelCount, samples: [Float](repeating: 0, count: max(0, frameCount) * channelCount))
    }

    /// Sample frames (one value per channel each).
    public var frameCount: Int { samples.count / channelCount }

    /// Sample frames `range` of this buffer.
    package func frames(_ range: Range<Int>) -> AudioPCMBuffer {
        AudioPCMBuffer(channelCount: channelCount, samples: Array(samples[(range.lowerBound * channelCount)..<(range.upperBound * channelCount)]))
    }
}

/// What one segment file's audio track is (the microphone's nominal format) and how it is
/// encoded: AAC-LC by libavcodec's `aac` encoder, track timescale = ``sampleRate``.
package struct AudioTrackSettings: Sendable, Hashable {
    /// Sample frames per second of the track, one of ``supportedSampleRates``.
    package var sampleRate: Int
    /// Channels, 1 or 2.
    package var channelCount: Int
    /// AAC bit rate in bits per second (`--audio-bitrate`, default 128 000).
    package var bitRate: Int

    /// The AAC sampling frequencies libavcodec's `aac` encoder takes.
    package static let supportedSampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
    /// The default bit rate, 128 kb/s.
    package static let defaultBitRate = 128_000

    /// Settings for a track of `sampleRate` Hz and `channelCount` channels at `bitRate` b/s.
    package init(sampleRate: Int, channelCount: Int, bitRate: Int = AudioTrackSettings.defaultBitRate) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitRate = bitRate
    }
}

/// The audio track ``SegmentRecovery`` kept in a rebuilt segment.
package struct RecoveredAudio: Sendable, Hashable {
    /// Sample frames per second (the track's timescale).
    package let sampleRate: Int
    /// Channels.
    package let channelCount: Int
    /// Sample frames the track declares (its edit list's length).
    package let sampleCount: Int64
    /// FFmpeg's codec name (`aac`; another for sound copied as sent).
    package var codecName = "aac"
}
