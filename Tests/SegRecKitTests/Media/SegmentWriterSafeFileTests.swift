import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: SegmentWriter safe files (exclusive create, no symlinks, no replace)", .tags(.media, .crashSafety)) struct MediaSegmentWriterSafeFileTests {
    static let size = VideoDimensions(width: 320, height: 240)

    static func writer(_ url: URL) throws -> SegmentWriter {
        try SegmentWriter(url: url, dimensions: size, timescale: 1_000_000_000, settings: EncoderSettings())
    }

    /// A symbolic link at `<name>.partial` (dangling or not) makes init throw; the link's
    /// target is not created, written or truncated, and nothing else appears.
    @Test(arguments: [true, false]) func symlinkAtPartialNameIsRefused(targetExists: Bool) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        let elsewhere = try MediaTestSupport.makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let target = elsewhere.appendingPathComponent("precious.txt")
        if targetExists { try Data("precious".utf8).write(to: target) }
        let url = directory.appendingPathComponent("seg.mp4")
        let partial = directory.appendingPathComponent("seg.mp4.partial")
        try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: target)
        let error = #expect(throws: SegmentWriterError.partialFileExists(path: partial.path)) { _ = try Self.writer(url) }
        #expect(error?.description.contains(partial.path) == true)
        if targetExists {
            #expect(try Data(contentsOf: target) == Data("precious".utf8))
        } else {
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["seg.mp4.partial"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: partial.path) == target.path)
    }

    /// An existing `<name>.partial` (e.g. left by a crash) is neither replaced nor written.
    @Test func existingPartialFileIsKept() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("seg.mp4")
        let partial = directory.appendingPathComponent("seg.mp4.partial")
        try Data("fragments of a crashed run".utf8).write(to: partial)
        #expect(throws: SegmentWriterError.partialFileExists(path: partial.path)) { _ = try Self.writer(url) }
        #expect(try Data(contentsOf: partial) == Data("fragments of a crashed run".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["seg.mp4.partial"])
    }

    /// A dangling symbolic link at the final name counts as an existing file.
    @Test func danglingSymlinkAtFinalNameIsRefused() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("seg.mp4")
        let target = directory.appendingPathComponent("nowhere")
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: target)
        #expect(throws: SegmentWriterError.fileExists(path: url.path)) { _ = try Self.writer(url) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// Links that appear at the temporary or the final name while recording are never
    /// followed or replaced: finish throws, the targets stay untouched and the partial file
    /// (holding the whole recording) stays. (The temporary name holds the segment's space
    /// reservation from the start: a link there means someone removed it and planted one;
    /// with a link at the final name the reservation stays, for recovery.)
    @Test(arguments: ["seg.mp4.tmp", "seg.mp4"]) func symlinkAppearingWhileRecordingIsNotFollowed(name: String) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        let elsewhere = try MediaTestSupport.makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let url = directory.appendingPathComponent("seg.mp4")
        let writer = try Self.writer(url)
        try FragmentTestSupport.append(0..<10, to: writer)
        let target = elsewhere.appendingPathComponent("precious.txt")
        try Data("precious".utf8).write(to: target)
        let link = directory.appendingPathComponent(name)
        if name == "seg.mp4.tmp" { try FileManager.default.removeItem(at: link) }
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let expected: SegmentWriterError = name == "seg.mp4" ? .fileExists(path: url.path) : .partialFileExists(path: link.path)
        #expect(throws: expected) { _ = try writer.finish(endTime: MediaTestSupport.ns(10 * 33_333_333)) }
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
        let left = name == "seg.mp4" ? ["seg.mp4", "seg.mp4.partial", "seg.mp4.tmp"] : ["seg.mp4.partial", "seg.mp4.tmp"]
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == left)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        // The kept partial file holds the finished recording.
        let recovered = try SegmentRecovery.recover(partial: writer.partialURL, to: elsewhere.appendingPathComponent("recovered.mp4"))
        #expect(recovered.frameCount >= 7)
    }
}
