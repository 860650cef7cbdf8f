import SegRecKit

/// `record`'s sound options: `--audio-bitrate` and `--no-audio` (Docs/DESIGN.md "Audio"),
/// for the scenario's microphone and for footage passed through.
extension RecordCommand {
    static let audioOptions: [OptionSpec] = [
        .option(
            "audio-bitrate", "N",
            help:
                "Target AAC bit rate (libavcodec aac's average; simple sound needs fewer bits) of each segment's audio track (the scenario's microphone, or the footage's first audio stream passed through): bits per second (\(minimumAudioBitRate)...\(maximumAudioBitRate)) or with k or K for thousands (128k, the default)."
        ), .flag("no-audio", help: "Record no sound: neither the scenario's microphone nor the audio of --source FILE.")
    ]

    /// The smallest and largest `--audio-bitrate`, bits per second.
    static let minimumAudioBitRate = 8000
    static let maximumAudioBitRate = 512_000

    /// `--audio-bitrate N` (or `Nk` / `NK`, as ffmpeg's `-b:a` takes them) in bits per second;
    /// the default 128 000 when absent.
    /// - Throws: a usage error (64) naming the option, the value and what is allowed.
    static func audioBitRate(_ parsed: ParsedArguments) throws -> Int {
        guard let text = parsed.value("audio-bitrate") else { return AudioTrackSettings.defaultBitRate }
        let thousands = text.hasSuffix("k") || text.hasSuffix("K")
        let digits = thousands ? String(text.dropLast()) : text
        let value = digits.count <= 9 && digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? Int(digits) : nil
        guard let value, case let bits = thousands ? value * 1000 : value, (minimumAudioBitRate...maximumAudioBitRate).contains(bits) else {
            throw CommandLineError(
                "record: --audio-bitrate: '\(Excerpt.of(text))' is not allowed; give bits per second, \(minimumAudioBitRate)...\(maximumAudioBitRate), e.g. 128000 or 128k",
                exitCode: .usage)
        }
        return bits
    }
}
