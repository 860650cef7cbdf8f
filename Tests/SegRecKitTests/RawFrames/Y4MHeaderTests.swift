import CFFmpeg
import Testing

@testable import SegRecMedia

/// The YUV4MPEG2 header parser reads every header as FFmpeg 5.1's yuv4mpegpipe demuxer does.
@Suite("Raw frames: YUV4MPEG2 header", .tags(.media)) struct Y4MHeaderTests {
    func parse(_ text: String) throws(Y4MHeader.Problem) -> Y4MHeader { try Y4MHeader.parse(Array(text.utf8)) }

    @Test("every field: W H F I A C and the X extensions") func everyField() throws {
        let h = try parse("YUV4MPEG2 W352 H288 F30000:1001 It A16:11 C420mpeg2 XCOLORRANGE=FULL\n")
        #expect(h.width == 352 && h.height == 288 && h.rateNumerator == 30000 && h.rateDenominator == 1001)
        #expect(h.fieldOrder == AV_FIELD_TT && h.aspectNumerator == 16 && h.aspectDenominator == 11)
        #expect(h.pixelFormat == AV_PIX_FMT_YUV420P && h.chromaLocation == AVCHROMA_LOC_LEFT && h.colorRange == AVCOL_RANGE_JPEG)
    }

    @Test("defaults: yuv420p, 25 fps, aspect 0:1, unknown field order and range") func defaults() throws {
        let h = try parse("YUV4MPEG2 W2 H2\n")
        #expect(h.pixelFormat == AV_PIX_FMT_YUV420P && h.rateNumerator == 25 && h.rateDenominator == 1)
        #expect(h.aspectNumerator == 0 && h.aspectDenominator == 1 && h.fieldOrder == AV_FIELD_UNKNOWN && h.colorRange == AVCOL_RANGE_UNSPECIFIED)
        #expect(try parse("YUV4MPEG2 W2 H2 F0:0 A0:0\n").rateNumerator == 25)
        #expect(try parse("YUV4MPEG2 W2 H2 F-30:1\n").rateNumerator == 25)
    }

    @Test(
        "C tags are matched as prefixes in FFmpeg's order",
        arguments: [
            ("420jpeg", AV_PIX_FMT_YUV420P), ("420p10", AV_PIX_FMT_YUV420P10LE), ("422", AV_PIX_FMT_YUV422P), ("444alpha", AV_PIX_FMT_YUVA444P),
            ("444", AV_PIX_FMT_YUV444P), ("mono", AV_PIX_FMT_GRAY8), ("mono16", AV_PIX_FMT_GRAY16LE), ("411", AV_PIX_FMT_YUV411P),
            ("420foo", AV_PIX_FMT_YUV420P), ("444p16", AV_PIX_FMT_YUV444P16LE)
        ]) func chromaTags(tag: String, format: AVPixelFormat) throws
    { #expect(try parse("YUV4MPEG2 W2 H2 C\(tag)\n").pixelFormat == format) }

    @Test("XYSCSS= only when there is no C tag; XCOLORRANGE=LIMITED") func extensions() throws {
        #expect(try parse("YUV4MPEG2 W2 H2 XYSCSS=444P10\n").pixelFormat == AV_PIX_FMT_YUV444P10LE)
        #expect(try parse("YUV4MPEG2 W2 H2 C422 XYSCSS=444P10\n").pixelFormat == AV_PIX_FMT_YUV422P)
        #expect(try parse("YUV4MPEG2 W2 H2 XCOLORRANGE=LIMITED\n").colorRange == AVCOL_RANGE_MPEG)
    }

    @Test("numbers as strtol and sscanf read them: signs, spaces, overflow truncated to 32 bits") func numbers() throws {
        #expect(try parse("YUV4MPEG2 W 64 H+48\n").width == 64)
        #expect(try parse("YUV4MPEG2 W 64 H+48\n").height == 48)
        #expect(try parse("YUV4MPEG2 W4294967298 H2\n").width == 2)
        #expect(try parse("YUV4MPEG2 W2 H2 F30\n").rateNumerator == 25, "F30 has no denominator: 30:0 is not positive")
        #expect(try parse("YUV4MPEG2 W2 H2 A4:\n").aspectNumerator == 4)
    }

    @Test(
        "refused as FFmpeg refuses",
        arguments: [
            ("YUV4MPEG W2 H2\n", Y4MHeader.Problem.badMagic), ("YUV4MPEG2 H2\n", .invalid("no width W")), ("YUV4MPEG2 W2\n", .invalid("no height H")),
            ("YUV4MPEG2 W-1 H2\n", .invalid("no width W")), ("YUV4MPEG2 W2 H2 Im\n", .mixedInterlacing), ("YUV4MPEG2 W2 H2 Cfoo\n", .unknownPixelFormat("foo")),
            ("YUV4MPEG2 W2 H2 Ix\n", .invalid("Ix: allowed Ip, It, Ib, I?")), ("YUV4MPEG2 W2 H2", .tooLong),
            ("YUV4MPEG2 W2 H2 " + String(repeating: "x", count: 80) + "\n", .tooLong), ("YUV4MPEG2 W64H48\n", .invalid("no height H"))
        ]) func refused(text: String, problem: Y4MHeader.Problem)
    { #expect(throws: problem) { try parse(text) } }

    @Test("a header of any bytes ends in a header or a refusal, within its 96 bytes") func anyBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("YUV4MPEG2 WHFIACX0123456789:-+pt?bm\n\0 jpegmonoCOLORRANGE=FULLYSCSS=".utf8)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...120, using: &generator)
            let body = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let line = Array("YUV4MPEG2 ".utf8) + body
            if let header = try? Y4MHeader.parse(line) {
                #expect(header.rateNumerator > 0 && header.rateDenominator > 0 && header.pixelFormat != AV_PIX_FMT_NONE)
            }
        }
    }

    @Test("FRAME lines: only the FRAME prefix counts; parameters are ignored") func frameLines() {
        #expect(Y4MHeader.isFrameLine(Array("FRAME\n".utf8)) && Y4MHeader.isFrameLine(Array("FRAME Ip XFOO=1\n".utf8)))
        #expect(!Y4MHeader.isFrameLine(Array("FRAM\n".utf8)) && !Y4MHeader.isFrameLine(Array("FR\0ME\n".utf8)))
    }
}
