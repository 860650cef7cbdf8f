import Foundation

/// What an app will push into a ``Recorder``: pictures with their session times (always),
/// and PCM sound on its own audio clock when ``audio`` is set.
public struct PushInput: Sendable {
    /// The sound an app pushes: its format and the clock its timestamps are read on.
    public struct Audio: Sendable {
        /// Sample frames per second of the app's audio clock: one of AAC's rates (8 000,
        /// 11 025, 12 000, 16 000, 22 050, 24 000, 32 000, 44 100, 48 000, 64 000, 88 200,
        /// 96 000), the segments' track rate.
        public var sampleRate: Int
        /// 1 (mono) or 2 (stereo), interleaved.
        public var channelCount: Int
        /// The clock the buffers' timestamps are read on (`AVCaptureSession`'s audio device
        /// clock, `CMClock`): converted to the session clock with ``convertTime(_:from:to:rounding:)``.
        /// Default: the session clock itself (``MediaClock/host``).
        public var clock: MediaClock
        /// The sound is the synthetic microphone's signal (Docs/DESIGN.md "Audio": a 1 kHz
        /// tone with a click at every whole session second), so `segrec verify` measures
        /// the clicks. The clock's identifier is then recorded as the microphone's.
        public var isSyntheticSignal = false

        /// Sound at `sampleRate` Hz in `channelCount` channels, stamped on `clock`.
        public init(sampleRate: Int, channelCount: Int, clock: MediaClock = .host) {
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.clock = clock
        }
    }

    /// The sound the app pushes, or nil (pictures only).
    public var audio: Audio?

    /// A push input; `audio` nil: pictures only.
    public init(audio: Audio? = nil) { self.audio = audio }
}

/// The clock an app's pushed pictures are stamped on: the session's synchronization clock.
extension Recorder {
    /// The clock pushed pictures' times are read on: the session clock (host nanoseconds).
    public static let sessionClock = MediaClock.host

    /// The source an app's pushes become, and the muxer settings they record with.
    /// - Throws: ``EncoderSettingsError``; ``RecordingInputError/unsupportedAudio(_:)``.
    static func pushedSource(_ configuration: RecordingConfiguration, _ push: PushInput, pool: PixelBufferPool) throws -> BuiltSource {
        try configuration.encoder.validate()
        var audio = configuration.recordsAudio ? push.audio : nil
        if let format = audio {
            guard AudioTrackSettings.supportedSampleRates.contains(format.sampleRate) else {
                throw RecordingInputError.unsupportedAudio(
                    "sampleRate \(format.sampleRate); allowed: AAC's rates, " + AudioTrackSettings.supportedSampleRates.map(String.init).joined(separator: ", ")
                )
            }
            guard (1...2).contains(format.channelCount) else {
                throw RecordingInputError.unsupportedAudio("channelCount \(format.channelCount); allowed: 1 or 2")
            }
            if format.isSyntheticSignal, format.clock.identifier != AudioCaptureDevice.defaultID {
                audio?.clock = try MediaClock(
                    identifier: AudioCaptureDevice.defaultID, timescale: format.clock.timescale, offsetNanoseconds: format.clock.offsetNanoseconds,
                    driftPartsPerBillion: format.clock.driftPartsPerBillion)
            }
        }
        let channel = PushChannel()
        let source = try PushSource(channel: channel, frameRate: configuration.encoder.frameRate, audio: audio, pool: pool)
        return BuiltSource(
            source: source, settings: configuration.encoder, devices: [sessionClock] + (audio.map { [$0.clock] } ?? []),
            stampsFrameIndex: configuration.stampsFrameIndex,
            audio: audio.map { AudioTrackSettings(sampleRate: $0.sampleRate, channelCount: $0.channelCount, bitRate: configuration.audioBitRate) },
            pushChannel: channel, pushAudio: audio ?? push.audio)
    }
}
