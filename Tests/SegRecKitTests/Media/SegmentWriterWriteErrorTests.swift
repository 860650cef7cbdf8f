import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs mounted for one test (needs root and `mount`); unmounted by ``unmount()``.
private struct TinyFileSystem {
    let url: URL

    /// Mounts a tmpfs of `bytes` (rounded up to pages) at a new directory, or nil when
    /// that is impossible here (not root, no mount permission).
    static func mount(bytes: Int) throws -> TinyFileSystem? {
        guard getuid() == 0 else { return nil }
        let url = try MediaTestSupport.makeTemporaryDirectory()
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", url.path]) else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        return TinyFileSystem(url: url)
    }

    func unmount() {
        _ = Self.run("/bin/umount", [url.path])
        try? FileManager.default.removeItem(at: url)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

@Suite("Media: SegmentWriter write errors (disk full)", .tags(.media, .crashSafety)) struct MediaSegmentWriterWriteErrorTests {
    static let size = VideoDimensions(width: 320, height: 240)
    static let quarterSecond = MediaTime(value: 1, timescale: 4)

    /// Appends stamped frames until an append throws; returns the error (nil if none).
    static func appendUntilFailure(_ writer: SegmentWriter, limit: Int) -> (any Error)? {
        for i in 0..<limit {
            do {
                try writer.append(
                    MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTestSupport.ns(Int64(i) * 33_333_333))
            } catch { return error }
        }
        return nil
    }

    /// Checks a kept partial file: it recovers into frames stamped 0..<n, n ≥ `atLeast`.
    static func expectRecoverable(_ partial: URL, atLeast: Int) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("recovered.mp4")
        let recovered = try SegmentRecovery.recover(partial: partial, to: url)
        #expect(recovered.frameCount >= atLeast)
        #expect(try FragmentTestSupport.stamps(url) == (0..<recovered.frameCount).map { UInt32($0) })
    }

    /// A real full disk (a 300 KiB tmpfs): the append that cut the fragment which did not
    /// fit (with the room its finished copy needs) throws ENOSPC naming the partial file;
    /// the partial file stays with its complete fragments, beside its reservation; finish
    /// rethrows the same error; and on the still-full disk the fragments are finished in
    /// place, into the reserved room.
    @Test func fullTmpfsFailsTheAppendAndKeepsFragments() throws {
        guard let disk = try TinyFileSystem.mount(bytes: 300 * 1024) else {
            print("skipped: cannot mount a tmpfs here (needs root)")
            return
        }
        defer { disk.unmount() }
        let url = disk.url.appendingPathComponent("seg.mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(crf: 12), fragmentInterval: Self.quarterSecond)
        let error = Self.appendUntilFailure(writer, limit: 3000)
        let expected = SegmentWriterError.io(path: writer.partialURL.path, operation: "write", errno: ENOSPC)
        #expect(error as? SegmentWriterError == expected)
        #expect((error as? SegmentWriterError)?.isNoSpace == true)
        #expect(expected.description == "write failed on \(writer.partialURL.path): No space left on device (errno 28)")
        #expect(throws: expected) { _ = try writer.finish(endTime: MediaTestSupport.ns(100_000_000_000)) }
        writer.cancel()  // after a failure: does nothing, the partial file stays
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path).sorted() == ["seg.mp4.partial", "seg.mp4.tmp"])
        try Self.expectRecoverable(writer.partialURL, atLeast: 1)
        try Self.expectRecoverableInPlace(writer.partialURL, to: url, atLeast: 1)
    }

    /// Recovers `partial` into `url` beside it (on the same, still full, disk), using the
    /// room its `.tmp` holds: frames stamped 0..<n, n ≥ `atLeast`, the reservation consumed.
    static func expectRecoverableInPlace(_ partial: URL, to url: URL, atLeast: Int) throws {
        let recovered = try SegmentRecovery.recover(partial: partial, to: url)
        #expect(recovered.reusedReservation)
        #expect(recovered.frameCount >= atLeast)
        #expect(try FragmentTestSupport.stamps(url) == (0..<recovered.frameCount).map { UInt32($0) })
        #expect(!FileManager.default.fileExists(atPath: SegmentFiles(url).temporary.path))
    }

    /// A disk with room for the partial file but not for it and its finished copy (before:
    /// every frame was on disk and finishing failed for want of space): the reservation
    /// meets the full disk first, the append that would outgrow it fails with ENOSPC naming
    /// the partial file, and the complete fragments are finished on the still-full disk,
    /// in the reserved room.
    @Test func diskWithoutRoomForTheCopyFinishesTheFragmentsInTheReservation() throws {
        let frames = 90
        // Measure the finished file's size on an ordinary disk first (same deterministic encode).
        let scratch = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let settings = EncoderSettings(crf: 12, threads: 1)
        func record(_ url: URL) throws -> SegmentWriter {
            let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: settings, fragmentInterval: Self.quarterSecond)
            try FragmentTestSupport.append(0..<frames, to: writer)
            return writer
        }
        let finalSize = try record(scratch.appendingPathComponent("m.mp4")).finish(endTime: MediaTestSupport.ns(Int64(frames) * 33_333_333)).byteCount
        // Room for the partial file (the final size plus fragment headers) but not for both.
        guard let disk = try TinyFileSystem.mount(bytes: Int(finalSize) * 3 / 2 + 16 * 1024) else {
            print("skipped: cannot mount a tmpfs here (needs root)")
            return
        }
        defer { disk.unmount() }
        let url = disk.url.appendingPathComponent("seg.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: settings, fragmentInterval: Self.quarterSecond)
        let error = Self.appendUntilFailure(writer, limit: 3000)
        #expect(error as? SegmentWriterError == .io(path: writer.partialURL.path, operation: "write", errno: ENOSPC))
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path).sorted() == ["seg.mp4.partial", "seg.mp4.tmp"])
        // At least a third of the frames (the disk holds 1.5 finished files, a partial and
        // its room take two).
        try Self.expectRecoverableInPlace(writer.partialURL, to: url, atLeast: frames / 3)
    }

    /// Without root: the test hook fails every write past 120 KB with ENOSPC, as a full disk
    /// would; same rules (error from the append, partial file kept and recoverable).
    @Test func simulatedFullDiskFailsTheAppendAndKeepsFragments() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("seg.mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(crf: 12), displayRotationDegrees: nil,
            fragmentInterval: Self.quarterSecond, sizeLimit: 120_000)
        let error = Self.appendUntilFailure(writer, limit: 3000)
        #expect(error as? SegmentWriterError == .io(path: writer.partialURL.path, operation: "write", errno: ENOSPC))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["seg.mp4.partial", "seg.mp4.tmp"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: writer.partialURL.path)[.size] as? Int)
        #expect(size <= 120_000)
        try Self.expectRecoverable(writer.partialURL, atLeast: 1)
    }
}
