import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// A finished copy is written once, with its `moov` in room reserved ahead of the `mdat`
/// (`moov_size`), instead of written and then shifted by `faststart`; a room too small
/// falls back to `faststart` and gives the same file contents.
@Suite("Media: the finished copy's moov room", .tags(.media, .crashSafety)) struct MoovRoomTests {
    static let size = VideoDimensions(width: 320, height: 240)

    /// The top-level boxes of a copy written into room: `ftyp`, `moov`, a `free` box holding
    /// the rest of the room (more than the 8-byte one the muxer always writes before
    /// `mdat`), `mdat`.
    static func expectWrittenIntoRoom(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let boxes = FragmentTestSupport.topLevelBoxes(try Data(contentsOf: url))
        #expect(Array(boxes.map(\.type).prefix(3)) == ["ftyp", "moov", "free"], "\(boxes)", sourceLocation: sourceLocation)
        #expect(boxes.last?.type == "mdat", "\(boxes)", sourceLocation: sourceLocation)
        #expect((boxes.count > 2 ? boxes[2].size : 0) > 8, "\(boxes)", sourceLocation: sourceLocation)
    }

    /// A copy of a partial file 90 frames into a recording (B-frames, 0.5 s fragments), its
    /// scan, the packets of its complete fragments (at least 30) and an end after them.
    static func partialFile(in directory: URL) throws -> (URL, FaststartRemuxer.Scan, Int, Int64) {
        let writer = try SegmentWriter(
            url: directory.appendingPathComponent("live.mp4"), dimensions: size, timescale: 1_000_000_000,
            settings: EncoderSettings(preset: "medium", keyframeInterval: 30), fragmentInterval: MediaTime(value: 1, timescale: 2))
        try FragmentTestSupport.append(0..<90, to: writer)
        // The fragments cut so far (x264's lookahead holds the rest back).
        let partial = directory.appendingPathComponent("copy.mp4.partial")
        try FileManager.default.copyItem(at: writer.partialURL, to: partial)
        writer.cancel()
        let scan = try FaststartRemuxer.scan(path: partial.path)
        let count = SegmentRecovery.keptCount(scan.packets)
        #expect(count >= 30)
        let end = try #require(scan.packets.prefix(count).map(\.pts).max()) + 33_333_333
        return (partial, scan, count, end)
    }

    /// Every recorded shape keeps its moov within the bound: B-frames at an irregular
    /// cadence (many `stts` and `ctts` runs), HEVC, an AAC track beside the video, and one
    /// frame.
    @Test(arguments: [(VideoCodec.h264, false, 120), (.hevc, false, 120), (.h264, true, 90), (.h264, false, 1)]) func finishedSegmentHasItsMoovInTheRoom(
        codec: VideoCodec, withAudio: Bool, frames: Int
    ) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("room.mp4")
        var pts: [Int64] = [0]
        for i in 1..<frames { pts.append(pts.last! + 30_000_000 + Int64(i % 4) * 5_000_000 + Int64(i % 3)) }
        let end = pts.last! + 20_000_007
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(codec: codec, preset: "medium", keyframeInterval: 250),
            fragmentInterval: MediaTime(value: 1, timescale: 2), audio: withAudio ? AudioTrackSettings(sampleRate: 48_000, channelCount: 1) : nil)
        let tone = SyntheticAudioSignal(sampleRate: 48_000, channelCount: 1)
        for (i, time) in pts.enumerated() {
            try writer.append(MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTestSupport.ns(time))
            if withAudio { try writer.appendAudio(tone.samples(from: Int64(i) * 1600, count: 1600, clickOnsets: [])) }
        }
        _ = try writer.finish(endTime: MediaTestSupport.ns(end))
        try Self.expectWrittenIntoRoom(url)
        try FragmentTestSupport.expectFaststart(url)
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.packets.map(\.pts) == pts)
        #expect(info.presentationEnd == end)
        #expect(try FragmentTestSupport.stamps(url) == (0..<pts.count).map { UInt32($0) })
        if MediaTestSupport.ffprobePath != nil {
            #expect(try FragmentTestSupport.ffprobePacketCount(url) == pts.count)
            if withAudio {
                let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "a", "-show_entries", "stream=duration_ts"], file: url)
                #expect((json?["streams"] as? [[String: Any]])?.first?["duration_ts"] as? Int == frames * 1600)
            }
        }
    }

    /// A room too small for the moov (64 bytes): the muxer refuses the trailer, and the copy
    /// is written again with faststart into the same file; its packets (pts, dts,
    /// durations) and pictures are those of a copy written into the upper bound's room.
    @Test func roomTooSmallFallsBackToFaststart() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (partial, scan, count, end) = try Self.partialFile(in: directory)
        let roomy = directory.appendingPathComponent("roomy.mp4")
        let small = directory.appendingPathComponent("small.mp4")
        let (roomySize, _) = try FaststartRemuxer.copy(from: partial.path, scan: scan, count: count, end: end, to: roomy.path)
        let (smallSize, _) = try FaststartRemuxer.copy(from: partial.path, scan: scan, count: count, end: end, to: small.path, moovRoom: .bytes(64))
        try Self.expectWrittenIntoRoom(roomy)
        try FragmentTestSupport.expectFaststart(small)
        let smallBoxes = FragmentTestSupport.topLevelBoxes(try Data(contentsOf: small))
        #expect(!smallBoxes.contains { $0.type == "free" && $0.size > 8 }, "\(smallBoxes)")
        #expect(smallSize < roomySize)
        #expect(smallSize == Int64(try Data(contentsOf: small).count))
        let roomyInfo = try MediaFileReader(url: roomy).streamInfo()
        let smallInfo = try MediaFileReader(url: small).streamInfo()
        #expect(smallInfo.packets.count == count)
        #expect(smallInfo.packets == roomyInfo.packets)
        #expect(smallInfo.presentationEnd == end)
        #expect(try FragmentTestSupport.stamps(small) == (0..<count).map { UInt32($0) })
        #expect(try FragmentTestSupport.stamps(roomy) == (0..<count).map { UInt32($0) })
    }

    /// No disk space for the room (a file system without reservations, or a recovery with
    /// none left: here a size limit of exactly the faststart copy's size, past which writes
    /// fail with ENOSPC): the copy is written again with faststart and fits.
    @Test func diskWithoutSpaceForTheRoomFallsBackToFaststart() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (partial, scan, count, end) = try Self.partialFile(in: directory)
        let plain = directory.appendingPathComponent("plain.mp4")
        let (plainSize, _) = try FaststartRemuxer.copy(from: partial.path, scan: scan, count: count, end: end, to: plain.path, moovRoom: .faststart)
        let tight = directory.appendingPathComponent("tight.mp4")
        let (tightSize, _) = try FaststartRemuxer.copy(from: partial.path, scan: scan, count: count, end: end, to: tight.path, sizeLimit: plainSize)
        #expect(tightSize == plainSize)
        try FragmentTestSupport.expectFaststart(tight)
        #expect(!FragmentTestSupport.topLevelBoxes(try Data(contentsOf: tight)).contains { $0.type == "free" && $0.size > 8 })
        #expect(try MediaFileReader(url: tight).streamInfo().packets == (try MediaFileReader(url: plain).streamInfo().packets))
        #expect(try FragmentTestSupport.stamps(tight) == (0..<count).map { UInt32($0) })
        // With room to spare the same copy keeps its room.
        let roomy = directory.appendingPathComponent("roomy.mp4")
        let (roomySize, _) = try FaststartRemuxer.copy(from: partial.path, scan: scan, count: count, end: end, to: roomy.path, sizeLimit: plainSize + 64 * 1024)
        #expect(roomySize > plainSize)
        try Self.expectWrittenIntoRoom(roomy)
    }

    /// The bound counts runs of equal values and grows with samples and runs.
    @Test func boundCountsSamplesAndRuns() {
        #expect(MoovRoom.runs([Int64]()) == 0)
        #expect(MoovRoom.runs([5, 5, 5] as [Int64]) == 1)
        #expect(MoovRoom.runs([1, 2, 2, 1, 1, 3] as [Int64]) == 4)
        let one = MoovRoom.bytes(tracks: [MoovRoom.Track(samples: 1, durationRuns: 1, offsetRuns: 1)], fixed: 0)
        #expect(one == MoovRoom.bytesWithoutSamples + MoovRoom.bytesPerTrack + MoovRoom.bytesPerSample + 2 * MoovRoom.bytesPerTimingEntry)
        let more = MoovRoom.bytes(tracks: [MoovRoom.Track(samples: 1000, durationRuns: 10, offsetRuns: 1000)], fixed: 100)
        #expect(more == MoovRoom.bytesWithoutSamples + 100 + MoovRoom.bytesPerTrack + 1000 * MoovRoom.bytesPerSample + 1010 * MoovRoom.bytesPerTimingEntry)
    }
}
