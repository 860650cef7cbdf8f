import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `segrec recover` on a folder as a crash leaves it: a copy taken while the recording
/// runs (journal + fragmented .partial), recovered, verified and read back.
@Suite("Recovery of an interrupted recording", .tags(.recording, .crashSafety)) struct RecordingRecoveryTests {
    let script = EventScript()
    let fm = FileManager.default

    @Test func recoverCompletesACopyTakenMidRecording() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let muxer = SegmentMuxer(
            SegmentMuxer.Configuration(
                output: try OutputDirectory(preparing: dir, force: false), settings: RecorderTestSupport.settings, policy: .split, devices: [EventScript.front],
                frameIndexStamp: true, fragmentInterval: MediaTime(value: 200, timescale: 1000)))
        let events = script.events(count: 40, initial: .ratio9x16, changes: [(10, .ratio16x9)], completionDelay: 0)
        for event in events.prefix(36) { try await muxer.process(event.detached()) }  // frames 0–34 and the completion
        // While it runs, the folder is locked and recover refuses, naming this process.
        #expect(throws: RecordingError.locked(path: dir.appendingPathComponent("recording.lock").path, pid: getpid())) { try RecordingRecovery.recover(dir) }
        #expect(try !RecordingVerifier.verify(dir).passed)
        try await Task.sleep(for: .milliseconds(400))  // let the writer flush its fragments
        // The crash: what is on disk now, copied before anything else happens.
        let crashed = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("crashed")
        try fm.copyItem(at: dir, to: crashed)
        _ = try await muxer.finishReleasingLock()

        let journal = try ManifestReader.read(from: crashed)
        #expect(journal.stopReason == nil)
        #expect(fm.fileExists(atPath: crashed.appendingPathComponent("segment-001.mp4.partial").path))
        let report = try RecordingRecovery.recover(crashed)
        #expect(report.changed)
        let manifest = report.manifest
        #expect(manifest.stopReason == .interrupted)
        #expect(manifest.segments.map(\.file) == ["segment-000.mp4", "segment-001.mp4"])
        #expect(manifest.segments[0].frameCount == 10)
        // Frames 10–34 were sent; the last fragment (0.2 s = 6 frames) may still be open and a
        // few frames may still be inside the encoder (frame threads) or waiting for their
        // successor's time: at least 25 − 6 − 7 are in complete fragments.
        let kept = manifest.segments[1].frameCount
        #expect(kept >= 12 && kept <= 25, "\(kept) frames recovered")
        #expect(manifest.segments[1].sessionStart == script.sessionTime(10))
        // The last recovered frame has no successor on disk: it lasts one frame interval (the
        // one before it, in the track's ticks of 1/15360 s), within one tick (65 105 ns) of
        // where frame 10 + kept starts.
        let endError = try manifest.segments[1].sessionEnd.subtracting(script.sessionTime(10 + Int64(kept)))
        #expect(abs(try endError.converted(toTimescale: 1_000_000_000).value) <= 65_105, "\(endError)")
        #expect(manifest.recovery?.recoveredFiles == ["segment-001.mp4"])
        #expect(manifest.recovery?.lostAfter == manifest.segments[1].sessionEnd)
        #expect(manifest.frames.written == 10 + kept)
        #expect(try RecorderTestSupport.stampedIndices(crashed.appendingPathComponent("segment-001.mp4")) == Array(10..<(10 + Int64(kept))))
        if let (w, h, n) = try RecorderTestSupport.probe(crashed.appendingPathComponent("segment-001.mp4")) { #expect(w == 320 && h == 180 && n == kept) }
        #expect(try RecordingVerifier.verify(crashed).passed)
        #expect(try fm.contentsOfDirectory(atPath: crashed.path).sorted() == ["manifest.json", "segment-000.mp4", "segment-001.mp4"])
        // Running it again changes nothing.
        let before = try Data(contentsOf: crashed.appendingPathComponent("manifest.json"))
        let again = try RecordingRecovery.recover(crashed)
        #expect(!again.changed)
        #expect(try Data(contentsOf: crashed.appendingPathComponent("manifest.json")) == before)
    }

    /// Killed right after a segment's file was created (no fragment yet): the empty partial
    /// holds nothing and goes; the frames the journal counted for it are dropped
    /// (`interrupted`), so received == written + dropped still holds.
    /// A hand-edited journal (a negative frame count) is refused with the field named, as
    /// `verify` does, and the folder is left as it was (before: exit 0, "-1" frames kept).
    @Test func refusesAManifestWithANumberOutOfRange() async throws {
        let events = script.events(count: 12, initial: .ratio9x16, changes: [], completionDelay: 0)
        let (dir, _) = try await RecorderTestSupport.record(events)
        let url = dir.appendingPathComponent("manifest.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var segments = try #require(json["segments"] as? [[String: Any]])
        segments[0]["frameCount"] = -1
        json["segments"] = segments
        json["stopReason"] = NSNull()
        let edited = try JSONSerialization.data(withJSONObject: json)
        try edited.write(to: url)
        #expect(throws: RecordingError.badInput(path: url.path, field: "segments[0].frameCount", detail: "-1 is out of range; allowed 0...2147483647")) {
            try RecordingRecovery.recover(dir)
        }
        #expect(try Data(contentsOf: url) == edited)
    }

    @Test func emptyPartialIsRemovedAndItsFramesCounted() async throws {
        let (dir, finished) = try await RecorderTestSupport.record(script.events(count: 6, initial: .ratio9x16, changes: [], completionDelay: 0))
        var journal = finished
        journal.stopReason = nil
        var open = finished.segments[0]
        open.file = "segment-001.mp4"
        open.frameCount = 4
        open.sessionStart = finished.segments[0].sessionEnd
        open.sessionEnd = open.sessionStart
        journal.segments.append(open)
        journal.frames.received += 4
        journal.frames.written += 4
        try ManifestWriter.write(journal, to: dir)
        #expect(fm.createFile(atPath: dir.appendingPathComponent("segment-001.mp4.partial").path, contents: Data()))
        let report = try RecordingRecovery.recover(dir)
        #expect(report.manifest.segments.map(\.file) == ["segment-000.mp4"])
        #expect(report.manifest.frames == FrameCounts(received: 10, written: 6, dropped: 4, droppedReasons: ["interrupted": 4]))
        #expect(report.manifest.recovery?.framesLost == 4)
        #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == ["manifest.json", "segment-000.mp4"])
        #expect(try RecordingVerifier.verify(dir).passed)
    }
}
