import Foundation

extension Recorder {
    /// Footage copied as sent (`--copy`): every video packet written as it is, a new file at
    /// the first keyframe of a new size (``CopySource``); the input's first audio stream
    /// copied as sent when the MP4 muxer takes its codec, else decoded and encoded into each
    /// segment's AAC track; none when ``RecordingConfiguration/recordsAudio`` is false. A live
    /// URL is reopened after an outage within its ``VideoSourceOptions/reconnectFor`` window.
    static func footageCopied(_ configuration: RecordingConfiguration, _ request: PullInput, stopRequest: RecordingStopRequest?) throws -> BuiltSource {
        let path = request.source.path ?? "-"
        if configuration.stampsFrameIndex {
            throw RecordingInputError.unsupportedCopy("a copied stream is not decoded, so no frame index can be stamped into it")
        }
        if request.realtime {
            throw RecordingInputError.unsupportedCopy("--realtime drops late pictures, and a copied stream cannot lose a picture its successors refer to")
        }
        let reader = try EncodedVideoReader(
            path: path, options: request.sourceOptions, stopRequest: stopRequest, decodesAudio: configuration.recordsAudio, copiesAudio: true)
        // A live URL is opened again after an outage, its sound in the form the first
        // connection's was recorded (copied, decoded, or none).
        let options = request.sourceOptions
        let decodesAudio = configuration.recordsAudio && (reader.audio != nil || reader.copiedAudioSampleRate > 0)
        let copiesAudio = reader.copiedAudioSampleRate > 0
        let reopen: ((VideoSourceOptions) throws(MediaInputError) -> EncodedVideoReader)? =
            VideoSourceOptions.networkScheme(of: path) != nil && options.reconnectFor > .zero
            ? { next throws(MediaInputError) in
                try EncodedVideoReader(path: path, options: next, stopRequest: stopRequest, decodesAudio: decodesAudio, copiesAudio: copiesAudio)
            } : nil
        let source = try CopySource(reader: reader, stopRequest: stopRequest, reopen: reopen)
        var settings = configuration.encoder
        settings.frameRate = source.frameRate
        let audio = reader.audio.map { AudioTrackSettings(sampleRate: $0.sampleRate, channelCount: $0.channelCount, bitRate: configuration.audioBitRate) }
        var built = BuiltSource(
            source: source, settings: settings,
            devices: [source.deviceClock] + (source.audioTiming.map { [$0.clock] } ?? []) + (source.copiedAudioClock.map { [$0] } ?? []),
            stampsFrameIndex: false,
            notes: !configuration.recordsAudio && reader.audioStreamCount > 0
                ? ["\(configuration.settingNames.noAudio): the input's sound is not recorded"] : [], rotationDegrees: reader.rotationDegrees, audio: audio,
            framesInFlight: SegmentMuxer.copyFramesInFlight)
        built.copiesStream = true
        built.copiedAudio = reader.copiedAudioFormat.map { CopiedAudioFormat(codec: $0.codec, sampleRate: reader.copiedAudioSampleRate, channels: $0.channels) }
        return built
    }
}
