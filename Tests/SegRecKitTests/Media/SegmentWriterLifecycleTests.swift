import CFFmpeg
import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: SegmentWriter files, misuse and errors", .tags(.media)) struct MediaSegmentWriterLifecycleTests {
    static let size = VideoDimensions(width: 320, height: 240)

    static func frame(_ i: Int) -> PixelBuffer { MediaTestSupport.stampedFrame(index: i, width: 320, height: 240) }

    @Test func refusesToOverwriteAnExistingFile() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("taken.mp4")
        try Data("keep me".utf8).write(to: url)
        #expect(throws: SegmentWriterError.fileExists(path: url.path)) {
            _ = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        }
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken.mp4"])
        #expect(SegmentWriterError.fileExists(path: url.path).description.contains(url.path))
    }

    @Test func writesToPartialFileUntilFinished() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("seg.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        try writer.append(Self.frame(0), presentationTime: .zero)
        #expect(writer.partialURL.lastPathComponent == "seg.mp4.partial")
        // The .tmp holds the room for the finished copy (SpaceReservation), from the start.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["seg.mp4.partial", "seg.mp4.tmp"])
        _ = try writer.finish(endTime: MediaTestSupport.ns(33_333_333))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["seg.mp4"])
        // Finished writers refuse more work.
        #expect(throws: SegmentWriterError.self) { try writer.append(Self.frame(1), presentationTime: MediaTestSupport.ns(40_000_000)) }
    }

    /// A file that appears under the final name while recording is not replaced: finish
    /// throws, and the partial file (which holds the finished recording) and the room
    /// reserved for its copy (`.tmp`) stay for recovery.
    @Test func finishRefusesAFileThatAppearedMeanwhile() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("race.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        try writer.append(Self.frame(0), presentationTime: .zero)
        try Data("other".utf8).write(to: url)
        #expect(throws: SegmentWriterError.fileExists(path: url.path)) { _ = try writer.finish(endTime: MediaTestSupport.ns(33_333_333)) }
        #expect(try Data(contentsOf: url) == Data("other".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["race.mp4", "race.mp4.partial", "race.mp4.tmp"])
        // The failure sticks: finishing again rethrows it.
        #expect(throws: SegmentWriterError.fileExists(path: url.path)) { _ = try writer.finish(endTime: MediaTestSupport.ns(33_333_333)) }
    }

    @Test func zeroFrameFinishCreatesNoFile() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("empty.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        let summary = try writer.finish(endTime: MediaTestSupport.ns(1_000))
        #expect(summary.frameCount == 0)
        #expect(summary.byteCount == 0)
        #expect(summary.url == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func cancelDeletesThePartialFile() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("cancelled.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        try writer.append(Self.frame(0), presentationTime: .zero)
        writer.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(throws: SegmentWriterError.self) { _ = try writer.finish(endTime: MediaTestSupport.ns(10)) }
    }

    @Test func releasingAnUnfinishedWriterDeletesThePartialFile() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let writer = try SegmentWriter(
                url: directory.appendingPathComponent("dropped.mp4"), dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
            try writer.append(Self.frame(0), presentationTime: .zero)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func rejectsNonIncreasingTimesAndBadEndsButStaysUsable() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("order.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        #expect(throws: SegmentWriterError.nonIncreasingPresentationTime(previous: nil, got: MediaTestSupport.ns(-1))) {
            try writer.append(Self.frame(0), presentationTime: MediaTestSupport.ns(-1))
        }
        try writer.append(Self.frame(0), presentationTime: .zero)
        try writer.append(Self.frame(1), presentationTime: MediaTestSupport.ns(40_000_000))
        let previous = MediaTestSupport.ns(40_000_000)
        #expect(throws: SegmentWriterError.nonIncreasingPresentationTime(previous: previous, got: previous)) {
            try writer.append(Self.frame(2), presentationTime: previous)
        }
        #expect(throws: SegmentWriterError.nonIncreasingPresentationTime(previous: previous, got: MediaTestSupport.ns(39_999_999))) {
            try writer.append(Self.frame(2), presentationTime: MediaTestSupport.ns(39_999_999))
        }
        #expect(throws: SegmentWriterError.dimensionsMismatch(expected: Self.size, got: VideoDimensions(width: 64, height: 64))) {
            try writer.append(PixelBuffer(width: 64, height: 64), presentationTime: MediaTestSupport.ns(80_000_000))
        }
        #expect(throws: SegmentWriterError.endTimeNotAfterLastFrame(lastFrame: previous, endTime: previous)) { _ = try writer.finish(endTime: previous) }
        try writer.append(Self.frame(2), presentationTime: MediaTestSupport.ns(80_000_000))
        let summary = try writer.finish(endTime: MediaTestSupport.ns(120_000_000))
        #expect(summary.frameCount == 3)
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.packets.map(\.pts) == [0, 40_000_000, 80_000_000])
        #expect(info.duration == 120_000_000)
    }

    @Test func invalidSettingsNameTheField() throws {
        let crf = #expect(throws: EncoderSettingsError.self) { try EncoderSettings(crf: 99).validate() }
        #expect(crf?.field == "crf")
        #expect(crf?.description == "invalid encoder setting crf = 99: allowed 0...51")
        let preset = #expect(throws: EncoderSettingsError.self) { try EncoderSettings(preset: "ludicrous").validate() }
        #expect(preset?.field == "preset")
        #expect(preset?.description.contains("ultrafast") == true)
        #expect(preset?.description.contains("ludicrous") == true)
        let gop = #expect(throws: EncoderSettingsError.self) { try EncoderSettings(keyframeInterval: 0).validate() }
        #expect(gop?.field == "keyframeInterval")
        let threads = #expect(throws: EncoderSettingsError.self) { try EncoderSettings(threads: -1).validate() }
        #expect(threads?.field == "threads")
        try EncoderSettings().validate()
        #expect(VideoCodec(rawValue: "hevc") == .hevc)
        #expect(VideoCodec.allowedValues == "h264, hevc")

        // The writer validates before touching the disk.
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: EncoderSettingsError.self) {
            _ = try SegmentWriter(
                url: directory.appendingPathComponent("x.mp4"), dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(crf: 99))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func missingDirectoryIsAnFFmpegNotFoundError() throws {
        let url = URL(fileURLWithPath: "/nonexistent-segrec-dir/seg.mp4")
        let error = #expect(throws: FFmpegError.self) {
            _ = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        }
        #expect(error?.call == "open")
        #expect(error?.isNotFound == true)
        #expect(error?.context == "/nonexistent-segrec-dir/seg.mp4.partial")
    }

    @Test func readerReportsMissingFileAsNotFound() throws {
        let error = #expect(throws: FFmpegError.self) { _ = try MediaFileReader(url: URL(fileURLWithPath: "/nonexistent-segrec-dir/missing.mp4")) }
        #expect(error?.isNotFound == true)
        #expect(error?.isNoSpace == false)
        #expect(error?.description.contains("/nonexistent-segrec-dir/missing.mp4") == true)
    }

    @Test func errorClassificationAndText() {
        let full = FFmpegError(call: "av_write_frame", code: segrec_averror_enospc(), context: "/tmp/x.mp4")
        #expect(full.isNoSpace)
        #expect(!full.isNotFound)
        #expect(full.message == "No space left on device")
        #expect(full.description == "av_write_frame failed (/tmp/x.mp4): No space left on device (-28)")
        #expect(throws: FFmpegError(call: "test", code: segrec_averror_eof())) { try check(segrec_averror_eof(), "test") }
        #expect((try? check(5, "test")) == 5)
    }
}
