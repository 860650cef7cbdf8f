// Y4MHeader: a YUV4MPEG2 stream header line parsed the way FFmpeg 5.1's yuv4mpegpipe demuxer parses it.
import CFFmpeg

/// The stream header of a YUV4MPEG2 file (`YUV4MPEG2 W352 H288 F30:1 Ip A1:1 C420jpeg XYSCSS=420JPEG`),
/// read exactly as FFmpeg 5.1's `yuv4mpegpipe` demuxer reads it, so that every header it
/// accepts is accepted with the same meaning and every header it refuses is refused:
///
/// - the line is at most ``maximumLength`` (96) bytes including its `\n`;
/// - it starts with `YUV4MPEG2`; tokens follow, separated by spaces; unknown tokens are ignored;
/// - `W` and `H` (required) are read like C's `strtol`; `F` (frame rate) and `A` (pixel
///   aspect) like `sscanf("%d:%d")`; a rate that is not positive is FFmpeg's 25 fps;
/// - `C` names the samples (``chromaTags``: `420jpeg`, `420mpeg2`, `420paldv`, `420`,
///   `411`, `422`, `444`, `444alpha`, `mono`, and the 9–16-bit `420p10`, `mono16`, …, matched as
///   prefixes in FFmpeg's order); `I` the field order (`p`, `t`, `b`, `?`; `m` is refused);
///   `X` extensions `XYSCSS=` (the older sample tags, used when there is no `C`) and
///   `XCOLORRANGE=FULL|LIMITED`.
///
/// Parsing reads only the bytes given (a bounded line) and allocates nothing by a number read
/// from it; the picture size is checked later (``RawFrameLayout``).
struct Y4MHeader: Equatable {
    /// The longest header line FFmpeg reads (bytes, `\n` included): `MAX_YUV4_HEADER`.
    static let maximumLength = 96
    /// The longest `FRAME` line (bytes, `\n` included): `MAX_FRAME_HEADER`.
    static let maximumFrameLineLength = 80
    /// `YUV4MPEG2`.
    static let magic: [UInt8] = Array("YUV4MPEG2".utf8)

    /// Width and height as read (`strtol`, truncated to 32 bits as FFmpeg stores them).
    var width: Int32
    var height: Int32
    var pixelFormat: AVPixelFormat
    /// The frame rate after FFmpeg's default (25/1 when the header gives none that is positive).
    var rateNumerator: Int32
    var rateDenominator: Int32
    /// The pixel aspect as read (0:1 when unknown).
    var aspectNumerator: Int32
    var aspectDenominator: Int32
    var chromaLocation: AVChromaLocation
    var colorRange: AVColorRange
    var fieldOrder: AVFieldOrder

    /// Why a header is refused, with FFmpeg's own sentence.
    enum Problem: Error, Equatable {
        case tooLong
        case badMagic
        case unknownPixelFormat(String)
        case mixedInterlacing
        case invalid(String)

        /// FFmpeg's sentence, and what is allowed.
        var sentence: String {
            switch self {
            case .tooLong: return "Header too large. (allowed: a header line of at most \(Y4MHeader.maximumLength) bytes)"
            case .badMagic: return "Invalid magic number for yuv4mpeg. (allowed: a first line that starts with YUV4MPEG2)"
            case .unknownPixelFormat(let tag):
                return "YUV4MPEG stream contains an unknown pixel format (C\(tag)); allowed: "
                    + Y4MHeader.chromaTags.map { "C" + $0.tag }.joined(separator: ", ")
            case .mixedInterlacing: return "YUV4MPEG stream contains mixed interlaced and non-interlaced frames (Im); allowed: Ip, It, Ib, I?"
            case .invalid(let why): return "YUV4MPEG has invalid header (\(why))."
            }
        }
    }

    /// The `C` tags FFmpeg knows, in the order it matches them (as prefixes), with the pixel
    /// format and chroma siting each one means.
    static let chromaTags: [(tag: String, format: AVPixelFormat, location: AVChromaLocation)] = [
        ("420jpeg", AV_PIX_FMT_YUV420P, AVCHROMA_LOC_CENTER), ("420mpeg2", AV_PIX_FMT_YUV420P, AVCHROMA_LOC_LEFT),
        ("420paldv", AV_PIX_FMT_YUV420P, AVCHROMA_LOC_TOPLEFT), ("420p16", AV_PIX_FMT_YUV420P16LE, AVCHROMA_LOC_UNSPECIFIED),
        ("422p16", AV_PIX_FMT_YUV422P16LE, AVCHROMA_LOC_UNSPECIFIED), ("444p16", AV_PIX_FMT_YUV444P16LE, AVCHROMA_LOC_UNSPECIFIED),
        ("420p14", AV_PIX_FMT_YUV420P14LE, AVCHROMA_LOC_UNSPECIFIED), ("422p14", AV_PIX_FMT_YUV422P14LE, AVCHROMA_LOC_UNSPECIFIED),
        ("444p14", AV_PIX_FMT_YUV444P14LE, AVCHROMA_LOC_UNSPECIFIED), ("420p12", AV_PIX_FMT_YUV420P12LE, AVCHROMA_LOC_UNSPECIFIED),
        ("422p12", AV_PIX_FMT_YUV422P12LE, AVCHROMA_LOC_UNSPECIFIED), ("444p12", AV_PIX_FMT_YUV444P12LE, AVCHROMA_LOC_UNSPECIFIED),
        ("420p10", AV_PIX_FMT_YUV420P10LE, AVCHROMA_LOC_UNSPECIFIED), ("422p10", AV_PIX_FMT_YUV422P10LE, AVCHROMA_LOC_UNSPECIFIED),
        ("444p10", AV_PIX_FMT_YUV444P10LE, AVCHROMA_LOC_UNSPECIFIED), ("420p9", AV_PIX_FMT_YUV420P9LE, AVCHROMA_LOC_UNSPECIFIED),
        ("422p9", AV_PIX_FMT_YUV422P9LE, AVCHROMA_LOC_UNSPECIFIED), ("444p9", AV_PIX_FMT_YUV444P9LE, AVCHROMA_LOC_UNSPECIFIED),
        ("420", AV_PIX_FMT_YUV420P, AVCHROMA_LOC_CENTER), ("411", AV_PIX_FMT_YUV411P, AVCHROMA_LOC_UNSPECIFIED),
        ("422", AV_PIX_FMT_YUV422P, AVCHROMA_LOC_UNSPECIFIED), ("444alpha", AV_PIX_FMT_YUVA444P, AVCHROMA_LOC_UNSPECIFIED),
        ("444", AV_PIX_FMT_YUV444P, AVCHROMA_LOC_UNSPECIFIED), ("mono16", AV_PIX_FMT_GRAY16LE, AVCHROMA_LOC_UNSPECIFIED),
        ("mono12", AV_PIX_FMT_GRAY12LE, AVCHROMA_LOC_UNSPECIFIED), ("mono10", AV_PIX_FMT_GRAY10LE, AVCHROMA_LOC_UNSPECIFIED),
        ("mono9", AV_PIX_FMT_GRAY9LE, AVCHROMA_LOC_UNSPECIFIED), ("mono", AV_PIX_FMT_GRAY8, AVCHROMA_LOC_UNSPECIFIED)
    ]

    /// The older `XYSCSS=` tags, in FFmpeg's order.
    static let extensionTags: [(tag: String, format: AVPixelFormat)] = [
        ("420JPEG", AV_PIX_FMT_YUV420P), ("420MPEG2", AV_PIX_FMT_YUV420P), ("420PALDV", AV_PIX_FMT_YUV420P), ("420P9", AV_PIX_FMT_YUV420P9LE),
        ("422P9", AV_PIX_FMT_YUV422P9LE), ("444P9", AV_PIX_FMT_YUV444P9LE), ("420P10", AV_PIX_FMT_YUV420P10LE), ("444P10", AV_PIX_FMT_YUV444P10LE),
        ("420P12", AV_PIX_FMT_YUV420P12LE), ("422P12", AV_PIX_FMT_YUV422P12LE), ("444P12", AV_PIX_FMT_YUV444P12LE), ("420P14", AV_PIX_FMT_YUV420P14LE),
        ("422P14", AV_PIX_FMT_YUV422P14LE), ("444P14", AV_PIX_FMT_YUV444P14LE), ("420P16", AV_PIX_FMT_YUV420P16LE), ("422P16", AV_PIX_FMT_YUV422P16LE),
        ("444P16", AV_PIX_FMT_YUV444P16LE), ("411", AV_PIX_FMT_YUV411P), ("422", AV_PIX_FMT_YUV422P), ("444", AV_PIX_FMT_YUV444P)
    ]

    /// Parses `line`: the bytes read for the header, up to and including its `\n` (a line
    /// without one, ``maximumLength`` bytes long, is too long).
    static func parse(_ line: [UInt8]) throws(Problem) -> Y4MHeader {
        guard let newline = line.firstIndex(of: 0x0A), newline < maximumLength else { throw .tooLong }
        // FFmpeg's buffer: the line, a space after it, a NUL; the zeros after it stand for
        // the rest of its stack buffer, which no string function reads past the NUL.
        let text = Y4MText(Array(line[...newline]) + [0x20] + [UInt8](repeating: 0, count: 16))
        guard text.startsWith(magic, at: 0) else { throw .badMagic }
        var header = Y4MHeader(
            width: -1, height: -1, pixelFormat: AV_PIX_FMT_NONE, rateNumerator: 0, rateDenominator: 0, aspectNumerator: 0, aspectDenominator: 0,
            chromaLocation: AVCHROMA_LOC_UNSPECIFIED, colorRange: AVCOL_RANGE_UNSPECIFIED, fieldOrder: AV_FIELD_UNKNOWN)
        var alternative = AV_PIX_FMT_NONE
        let end = newline + 1  // the added space
        var t = magic.count + 1
        while t < end {
            if text[t] == 0x20 {
                t += 1
                continue
            }
            let key = text[t]
            t += 1
            switch key {
            case UInt8(ascii: "W"): (header.width, t) = text.strtol(at: t)
            case UInt8(ascii: "H"): (header.height, t) = text.strtol(at: t)
            case UInt8(ascii: "C"):
                guard let match = chromaTags.first(where: { text.startsWith(Array($0.tag.utf8), at: t) }) else {
                    throw .unknownPixelFormat(text.token(at: t, end: end))
                }
                header.pixelFormat = match.format
                if match.location != AVCHROMA_LOC_UNSPECIFIED { header.chromaLocation = match.location }
                t = text.skipToSpace(from: t, end: end)
            case UInt8(ascii: "I"):
                let order = text[t]
                t += 1
                switch order {
                case UInt8(ascii: "?"): header.fieldOrder = AV_FIELD_UNKNOWN
                case UInt8(ascii: "p"): header.fieldOrder = AV_FIELD_PROGRESSIVE
                case UInt8(ascii: "t"): header.fieldOrder = AV_FIELD_TT
                case UInt8(ascii: "b"): header.fieldOrder = AV_FIELD_BB
                case UInt8(ascii: "m"): throw .mixedInterlacing
                default: throw .invalid("I\(Y4MText.printable(order)): allowed Ip, It, Ib, I?")
                }
            case UInt8(ascii: "F"):
                text.scanPair(at: t, into: &header.rateNumerator, &header.rateDenominator)
                t = text.skipToSpace(from: t, end: end)
            case UInt8(ascii: "A"):
                text.scanPair(at: t, into: &header.aspectNumerator, &header.aspectDenominator)
                t = text.skipToSpace(from: t, end: end)
            case UInt8(ascii: "X"):
                if text.startsWith(Array("YSCSS=".utf8), at: t) {
                    t += 6
                    if let match = extensionTags.first(where: { text.startsWith(Array($0.tag.utf8), at: t) }) { alternative = match.format }
                } else if text.startsWith(Array("COLORRANGE=".utf8), at: t) {
                    t += 11
                    if text.startsWith(Array("FULL".utf8), at: t) {
                        header.colorRange = AVCOL_RANGE_JPEG
                    } else if text.startsWith(Array("LIMITED".utf8), at: t) {
                        header.colorRange = AVCOL_RANGE_MPEG
                    }
                }
                t = text.skipToSpace(from: t, end: end)
            default: break
            }
            t += 1
        }
        guard header.width != -1, header.height != -1 else { throw .invalid(header.width == -1 ? "no width W" : "no height H") }
        if header.pixelFormat == AV_PIX_FMT_NONE { header.pixelFormat = alternative == AV_PIX_FMT_NONE ? AV_PIX_FMT_YUV420P : alternative }
        if header.rateNumerator <= 0 || header.rateDenominator <= 0 { (header.rateNumerator, header.rateDenominator) = (25, 1) }
        if header.aspectNumerator == 0 && header.aspectDenominator == 0 { header.aspectDenominator = 1 }
        return header
    }

    /// Whether a `FRAME` line (the bytes read for it, up to and including `\n`) starts a
    /// frame: FFmpeg checks only that it starts with `FRAME`; its parameters are ignored.
    static func isFrameLine(_ line: [UInt8]) -> Bool { Y4MText(line + [0]).startsWith(Array("FRAME".utf8), at: 0) }
}
