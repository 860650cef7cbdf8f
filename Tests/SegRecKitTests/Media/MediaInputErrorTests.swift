import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The media layer's input errors read and exit exactly as the recording layer's did.
@Suite("Media: input errors", .tags(.media)) struct MediaInputErrorTests {
    @Test("messages are the recording layer's text for the same problem") func sameMessages() {
        #expect(MediaInputError.inputNotFound(path: "a.mp4").description == RecordingError.inputNotFound(path: "a.mp4").description)
        #expect(
            MediaInputError.badInput(path: "a.mp4", field: "data", detail: "truncated").description
                == RecordingError.badInput(path: "a.mp4", field: "data", detail: "truncated").description)
        #expect(MediaInputError.badInput(path: "-", field: "container", detail: "x").description == "-: container: x")
    }

    @Test("exit codes: no such file 66, bad data 65") func exitCodes() {
        let missing = ErrorMapping.commandLineError(MediaInputError.inputNotFound(path: "a.mp4"))
        #expect(missing.exitCode == .noInput && missing.message == "a.mp4: no such file")
        let bad = ErrorMapping.commandLineError(MediaInputError.badInput(path: "a.mp4", field: "data", detail: "truncated"))
        #expect(bad.exitCode == .dataError && bad.message == "a.mp4: data: truncated")
    }

    @Test("a missing file and raw video without a size are media errors") func decoderThrowsMediaErrors() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        let missing = directory.appendingPathComponent("missing.mp4").path
        #expect(throws: MediaInputError.inputNotFound(path: missing)) { try VideoFileDecoder(path: missing) }
        let raw = directory.appendingPathComponent("raw.yuv")
        try Data(repeating: 128, count: 64 * 64 * 3 / 2).write(to: raw)
        #expect(throws: MediaInputError.badInput(path: raw.path, field: "videoSize", detail: "raw video has no header: give its size as WxH, e.g. 352x288")) {
            try VideoFileDecoder(path: raw.path)
        }
    }

    @Test("the library names the field, the command line its option") func fieldsBecomeOptions() {
        let raw = MediaInputError.badInput(path: "/x.yuv", field: "videoSize", detail: "raw video has no header: give its size as WxH, e.g. 352x288")
        #expect(raw.description == "/x.yuv: videoSize: raw video has no header: give its size as WxH, e.g. 352x288")
        let mapped = ErrorMapping.commandLineError(raw)
        #expect(mapped.message == "/x.yuv: --video-size: raw video has no header: give its size as WxH, e.g. 352x288" && mapped.exitCode == .dataError)
        let canvas = ErrorMapping.commandLineError(RecordingError.badInput(path: "canvas", field: "641x360", detail: "allowed: even width and height"))
        #expect(canvas.message == "--canvas: 641x360: allowed: even width and height" && canvas.exitCode == .dataError)
    }
}
