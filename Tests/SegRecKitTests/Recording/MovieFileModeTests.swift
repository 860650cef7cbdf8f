import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Movie-file mode (stop on change) on real encoded files", .tags(.recording)) struct MovieFileModeTests {
    let script = EventScript()

    @Test(arguments: [Int64(-1), 0, 2]) func stopsAtTheFirstNewSizeFrame(completionDelay: Int64) async throws {
        let events = script.events(count: 20, initial: .ratio9x16, changes: [(7, .ratio16x9), (14, .ratio1x1)], completionDelay: completionDelay)
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .stopOnChange)
        #expect(manifest.mode == .stopOnChange)
        #expect(manifest.stopReason == .dimensionsChanged)
        #expect(manifest.stopTime == script.sessionTime(7))
        #expect(manifest.segments.count == 1)
        let segment = try #require(manifest.segments.first)
        #expect(segment.frameCount == 7)
        #expect(segment.sessionEnd == script.sessionTime(7))
        #expect(manifest.frames == FrameCounts(received: 20, written: 7, dropped: 13, droppedReasons: ["recordingStopped": 13]))
        let url = dir.appendingPathComponent(segment.file)
        #expect(try RecorderTestSupport.stampedIndices(url) == Array(0...6))
        // The file's end at its track tick (1/15360 s for 30 fps), rounded once.
        #expect(
            try MediaFileReader(url: url).streamInfo().presentationEnd
                == (try (script.sessionTime(7) - script.sessionTime(0)).converted(toTimescale: 15_360)).value)
        if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == 180 && h == 320 && n == 7) }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    @Test func noChangeRecordsToTheEnd() async throws {
        let events = script.events(count: 5, initial: .ratio4x3, changes: [], completionDelay: 0)
        let (_, manifest) = try await RecorderTestSupport.record(events, mode: .stopOnChange)
        #expect(manifest.stopReason == .endOfStream)
        #expect(manifest.segments.map(\.frameCount) == [5])
    }
}

@Suite("OutputDirectory", .tags(.recording)) struct OutputDirectoryTests {
    /// A previous recording is refused without --force; with it, exactly the files its
    /// manifest lists (and the manifest) go, and the user's file stays.
    @Test func refusesToOverwriteWithoutForce() async throws {
        let (dir, _) = try await RecorderTestSupport.record([EventScript().frame(0, .ratio1x1)], mode: .segment)
        try Data("keep".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        #expect(throws: RecordingError.outputExists(path: dir.path)) { try OutputDirectory(preparing: dir, force: false) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["manifest.json", "notes.txt", "segment-000.mp4"])
        let prepared = try OutputDirectory(preparing: dir, force: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["notes.txt", "recording.lock"])
        prepared.lock.release()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
    }

    /// A regular file where the folder should be is never replaced, even with --force.
    @Test func aFileInTheWayIsNotAFolder() async throws {
        let file = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("taken")
        try Data("keep".utf8).write(to: file)
        for force in [false, true] {
            #expect(throws: RecordingError.cannotCreateOutput(path: file.path, detail: "it is a file, not a folder (force does not replace files)")) {
                try OutputDirectory(preparing: file, force: force)
            }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep")
    }

    /// `verify` fails on a segment file the manifest does not list.
    @Test func verifierFlagsStraySegmentFiles() async throws {
        let (dir, _) = try await RecorderTestSupport.record([EventScript().frame(0, .ratio1x1)], mode: .segment)
        #expect(try RecordingVerifier.verify(dir).passed)
        try FileManager.default.copyItem(at: dir.appendingPathComponent("segment-000.mp4"), to: dir.appendingPathComponent("segment-001.mp4"))
        let report = try RecordingVerifier.verify(dir)
        #expect(!report.passed)
        #expect(report.problems == ["segment-001.mp4 is in the folder but not in the manifest"])
    }

    @Test func segmentNames() {
        #expect(OutputDirectory.segmentFileName(0) == "segment-000.mp4")
        #expect(OutputDirectory.segmentFileName(42) == "segment-042.mp4")
        #expect(OutputDirectory.segmentFileName(1234) == "segment-1234.mp4")
    }
}

@Suite("RecordingPipeline stop request", .tags(.recording, .crashSafety)) struct RecordingStopRequestTests {
    /// A source that asks the pipeline to stop once it has delivered `stopAfter` events.
    final class StoppingSource: CaptureOutputEventSource {
        let inner: ScriptedSource, stop: RecordingStopRequest, stopAfter: Int
        var delivered = 0
        init(_ events: [CaptureOutputEvent], stop: RecordingStopRequest, after: Int) {
            inner = ScriptedSource(events)
            self.stop = stop
            stopAfter = after
        }
        func next() throws -> sending CaptureOutputEvent? {
            delivered += 1
            if delivered == stopAfter { stop.request() }
            return try inner.next()
        }
        func stopRunning() { inner.stopRunning() }
    }

    /// Stopping after frame 9 of 20 (a change at 7): two files, frames 0–9 kept, the last
    /// one ending at frame 10's time, `stopReason: requested`.
    @Test(arguments: [RecordingMode.segment, .stopOnChange]) func stopsCleanlyWhenRequested(mode: RecordingMode) async throws {
        let script = EventScript()
        let events = script.events(count: 20, initial: .ratio9x16, changes: [(7, .ratio16x9)], completionDelay: 0)
        let stop = RecordingStopRequest()
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: mode)
        var pipeline = RecordingPipeline(source: StoppingSource(events, stop: stop, after: 11), muxer: muxer)
        pipeline.stopRequest = stop
        let manifest = try await pipeline.run()
        if mode == .segment {
            // Events 1–11 are frames 0–6, the completion, frames 7–9.
            #expect(manifest.stopReason == .requested)
            #expect(manifest.segments.map(\.frameCount) == [7, 3])
            #expect(manifest.segments.last?.sessionEnd == script.sessionTime(10))
            #expect(manifest.frames.received == 10 && manifest.frames.dropped == 0)
            #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-001.mp4")) == [7, 8, 9])
        } else {
            #expect(manifest.stopReason == .dimensionsChanged)  // it had stopped on the change already
            #expect(manifest.segments.map(\.frameCount) == [7])
        }
        #expect(try RecordingVerifier.verify(dir).passed)
    }
}
