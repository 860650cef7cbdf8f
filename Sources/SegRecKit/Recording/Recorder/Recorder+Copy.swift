import Foundation

extension Recorder {
    /// Footage copied as sent (`--copy`): every video packet written as it is, a new file at
    /// the first keyframe of a new size (``CopySource``); the input's first audio stream
    /// copied as sent when the MP4 muxer takes its codec, else decoded and encoded into each
    /// segment's AAC track; none when ``RecordingConfiguration/recordsAudio`` is false.
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
        let source = try CopySource(reader: reader)
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
