import SegRecKit

/// `record`'s segment limits: `--max-segment-duration` and `--max-segment-bytes`
/// (Docs/recording.md, "Segment limits").
extension RecordCommand {
    static let limitOptions: [OptionSpec] = [
        .option(
            "max-segment-duration", "SECONDS",
            help:
                "Also start a new file (startReason maxSegmentDuration) at the first frame at or after the segment's start plus SECONDS (decimal, up to 9 decimals, 0.001...31622400)."
        ),
        .option(
            "max-segment-bytes", "N",
            help:
                "Also start a new file (startReason maxSegmentBytes) at the first frame given to the encoder after the file's encoded packets reach N bytes (\(minimumSegmentBytes)...\(Int64.max))."
        )
    ]

    /// The smallest `--max-segment-bytes`: a file holds at least its header.
    static let minimumSegmentBytes: Int64 = 1024

    /// `--max-segment-duration SECONDS` as an exact time in nanoseconds (nil when absent):
    /// digits, optionally a point and up to 9 decimals, 0.001 s ... 366 days.
    /// - Throws: a usage error (64) naming the option, the value and what is allowed.
    static func maximumSegmentDuration(_ parsed: ParsedArguments) throws -> MediaTime? {
        guard let text = parsed.value("max-segment-duration") else { return nil }
        guard let nanoseconds = DecimalSecondsArgument.units(text, decimals: 9, wholeDigits: 8) else {
            throw CommandLineError(
                "record: --max-segment-duration: '\(Excerpt.of(text))' is not allowed; give seconds as a decimal number with up to 9 decimals, 0.001...31622400, e.g. 5 or 2.5",
                exitCode: .usage)
        }
        guard (1_000_000...31_622_400_000_000_000).contains(nanoseconds) else {
            throw CommandLineError("record: --max-segment-duration: '\(Excerpt.of(text))' is out of range; allowed: 0.001...31622400 seconds", exitCode: .usage)
        }
        return MediaTime(value: nanoseconds, timescale: 1_000_000_000)
    }

    /// `--max-segment-bytes N` (nil when absent): an integer ≥ ``minimumSegmentBytes``.
    /// - Throws: a usage error (64) naming the option, the value and what is allowed.
    static func maximumSegmentBytes(_ parsed: ParsedArguments) throws -> Int64? {
        guard let text = parsed.value("max-segment-bytes") else { return nil }
        guard let value = Int64(text), value >= minimumSegmentBytes else {
            throw CommandLineError(
                "record: --max-segment-bytes: '\(Excerpt.of(text))' is not allowed; give a whole number of bytes, \(minimumSegmentBytes)...\(Int64.max), e.g. 50000000",
                exitCode: .usage)
        }
        return value
    }
}
