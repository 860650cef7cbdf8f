import Foundation
import Testing

@testable import SegRecMedia
@testable import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// The room a segment holds for its finished copy (``SpaceReservation``), on the test
/// folder's own file system: blocks reserved ahead of the partial file while recording (the
/// `.tmp` stays 0 bytes long), and released when the finished file is in place.
@Suite("Media: space reserved for closing", .tags(.media, .crashSafety)) struct SpaceReservationTests {
    static let size = VideoDimensions(width: 320, height: 240)

    /// Allocated bytes and size of `url`.
    static func usage(_ url: URL) -> (allocated: Int64, size: Int64) {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return (-1, -1) }
        return (Int64(info.st_blocks) * 512, Int64(info.st_size))
    }

    @Test func reservationCoversThePartialFileAndIsReleasedAtClose() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("seg.mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(crf: 12, threads: 1),
            fragmentInterval: MediaTime(value: 1, timescale: 4))
        try FragmentTestSupport.append(0..<60, to: writer)
        let partial = Self.usage(writer.partialURL)
        let reserved = Self.usage(writer.temporaryURL)
        #expect(partial.size > 0)
        #expect(reserved.size == 0, "the reservation keeps its size at 0")
        // Where the file system has fallocate (ext4, xfs, tmpfs): at least the partial's size
        // plus 1/16 and 32 KiB is held. (Without it nothing is held: allocated stays 0.)
        if reserved.allocated > 0 {
            #expect(reserved.allocated >= SpaceReservation.needed(forPartialOf: partial.size), "\(reserved.allocated) for a partial of \(partial.size)")
        }
        let summary = try writer.finish(endTime: MediaTestSupport.ns(60 * 33_333_333))
        let finished = Self.usage(url)
        #expect(summary.frameCount == 60)
        #expect(try FragmentTestSupport.stamps(url) == (0..<60).map { UInt32($0) })
        #expect(finished.size == summary.byteCount)
        // The rest of the reservation is released: the finished file holds its own size,
        // rounded up to the file system's blocks.
        #expect(finished.allocated < finished.size + 64 * 1024, "\(finished.allocated) bytes allocated for \(finished.size)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["seg.mp4"])
    }

    /// A leftover copy that is not a reusable reservation is never written into: a second
    /// name of another file, or a FIFO (which must not block the open).
    @Test func onlyARegularFileWithOneNameIsReused() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = directory.appendingPathComponent("other")
        try Data("theirs".utf8).write(to: other)
        let linked = directory.appendingPathComponent("linked.tmp")
        #expect(link(other.path, linked.path) == 0)
        #expect(SpaceReservation(existing: linked.path) == nil)
        let fifo = directory.appendingPathComponent("fifo.tmp")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        #expect(SpaceReservation(existing: fifo.path) == nil)
        let plain = directory.appendingPathComponent("plain.tmp")
        try Data(count: 4096).write(to: plain)
        #expect(SpaceReservation(existing: plain.path) != nil)
        #expect(try Data(contentsOf: other) == Data("theirs".utf8))
    }
}
