import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: SegmentRecovery of truncated partial files", .tags(.media, .crashSafety)) struct MediaSegmentRecoveryTests {
    static let size = VideoDimensions(width: 320, height: 240)
    static let frame: Int64 = 33_333_333

    /// Where to cut the copy of the partial file.
    enum Cut: String, CaseIterable { case middleOfLastMediaData, insideLastFragmentHeader }

    /// A partial file cut inside its last fragment (as `kill -9` leaves it) recovers into an
    /// ordinary MP4 whose frames carry the stamps 0..<n without a gap, n ≥ the frames of the
    /// complete fragments minus the reorder tail; the partial file is left in place.
    @Test(arguments: Cut.allCases) func truncatedPartialRecoversAGapFreePrefix(cut: Cut) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try SegmentWriter(
            url: directory.appendingPathComponent("live.mp4"), dimensions: Self.size, timescale: 1_000_000_000,
            settings: EncoderSettings(preset: "medium", keyframeInterval: 600))
        try FragmentTestSupport.append(0..<170, to: writer)  // "medium" holds back ~40 frames: ≥ 3 fragments cut
        let data = try Data(contentsOf: writer.partialURL)
        writer.cancel()
        let boxes = FragmentTestSupport.topLevelBoxes(data)
        let moofs = boxes.filter { $0.type == "moof" }
        try #require(moofs.count >= 3, "\(boxes)")
        let lastMoof = moofs[moofs.count - 1]
        let lastMdat = try #require(boxes.first { $0.type == "mdat" && $0.offset > lastMoof.offset })
        let length =
            switch cut {
            case .middleOfLastMediaData: lastMdat.offset + lastMdat.size / 2
            case .insideLastFragmentHeader: lastMoof.offset + lastMoof.size / 2
            }
        let partial = directory.appendingPathComponent("cut.mp4.partial")
        try data.prefix(length).write(to: partial)
        // Frames in the complete fragments (before the last moof).
        let completeFrames = try MediaFileReader(
            url: {
                let head = directory.appendingPathComponent("head.mp4")
                try data.prefix(lastMoof.offset).write(to: head)
                return head
            }()
        ).streamInfo().frameCount

        let url = directory.appendingPathComponent("cut.mp4")
        let recovered = try SegmentRecovery.recover(partial: partial, to: url)
        let n = recovered.frameCount
        // Every frame of the complete fragments, except those presented after the last
        // decode time read (at most x264's B-frame depth, 3 for "medium").
        #expect(completeFrames >= 60)
        #expect(n >= completeFrames - 3)
        #expect(n < 170)
        #expect(recovered.timescale == 1_000_000_000)
        #expect(recovered.firstPresentationTime == .zero)
        #expect(recovered.end == MediaTestSupport.ns(Int64(n) * Self.frame))
        #expect(recovered.byteCount == Int64(try Data(contentsOf: url).count))
        #expect(FileManager.default.fileExists(atPath: partial.path), "the caller deletes the partial file")
        #expect(!FileManager.default.fileExists(atPath: url.path + ".tmp"))
        try FragmentTestSupport.expectFaststart(url)
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.packets.map(\.pts) == (0..<n).map { Int64($0) * Self.frame })
        #expect(info.presentationEnd == Int64(n) * Self.frame)
        #expect(try FragmentTestSupport.stamps(url) == (0..<n).map { UInt32($0) })
        if MediaTestSupport.ffprobePath != nil { #expect(try FragmentTestSupport.ffprobePacketCount(url) == n) }
        // Recovering again refuses to replace the finished file.
        #expect(throws: SegmentWriterError.fileExists(path: url.path)) { _ = try SegmentRecovery.recover(partial: partial, to: url) }
    }

    /// A partial file holding only the header (killed before the first fragment) has
    /// nothing to recover: a clear error and no file.
    @Test func headerOnlyPartialHasNoFrames() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try SegmentWriter(
            url: directory.appendingPathComponent("early.mp4"), dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings())
        try FragmentTestSupport.append(0..<5, to: writer)
        let partial = directory.appendingPathComponent("copy.mp4.partial")
        try FileManager.default.copyItem(at: writer.partialURL, to: partial)
        writer.cancel()
        let url = directory.appendingPathComponent("early-recovered.mp4")
        let error = #expect(throws: SegmentRecoveryError.self) { _ = try SegmentRecovery.recover(partial: partial, to: url) }
        #expect(error?.description.contains(partial.path) == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".tmp"))
    }

    /// The cut rule on its own: truncated packets end the prefix; a frame presented after
    /// a missing one (or after the last decode time) is dropped.
    @Test func cutRule() {
        func p(_ pts: Int64, _ dts: Int64, complete: Bool = true) -> FaststartRemuxer.PacketTiming {
            FaststartRemuxer.PacketTiming(pts: pts, dts: dts, duration: 1, isComplete: complete)
        }
        // I0 P3 B1 B2 P6 B4, B5 never read: P6 may be presented after B5, keep I0 P3 B1 B2.
        #expect(SegmentRecovery.keptCount([p(0, -2), p(3, -1), p(1, 0), p(2, 1), p(6, 2), p(4, 3)]) == 4)
        // Everything presented before the last dts and nothing later: keep all.
        #expect(SegmentRecovery.keptCount([p(0, 0), p(1, 1), p(2, 2)]) == 3)
        // A truncated packet ends the prefix even when later ones are complete.
        #expect(SegmentRecovery.keptCount([p(0, 0), p(1, 1, complete: false), p(2, 2)]) == 1)
        #expect(SegmentRecovery.keptCount([p(0, 0, complete: false)]) == 0)
        #expect(SegmentRecovery.keptCount([]) == 0)
        // Reordered tail: I0 P2 B1 — P2 is presented after the last dts (1): keep I0 only...
        // unless B1 is read: then max(0,2,1)=2 > dts 1, so the gap-free prefix is I0.
        #expect(SegmentRecovery.keptCount([p(0, -1), p(2, 0), p(1, 1)]) == 1)
    }
}
