import Foundation
import Testing
@testable import SegRecKit

@Suite("MovieFileRecorder (stop on change) on real encoded files")
struct MovieFileRecorderTests {
    let script = EventScript()

    @Test(arguments: [Int64(-1), 0, 2])
    func stopsAtTheFirstNewSizeFrame(completionDelay: Int64) throws {
        let events = script.events(count: 20, initial: .ratio9x16,
                                   changes: [(7, .ratio16x9), (14, .ratio1x1)], completionDelay: completionDelay)
        let (dir, manifest) = try RecorderTestSupport.record(events, mode: .stopOnChange)
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
        #expect(try MediaFileReader(url: url).streamInfo().presentationEnd == (script.sessionTime(7) - script.sessionTime(0)).value)
        if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == 180 && h == 320 && n == 7) }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    @Test func noChangeRecordsToTheEnd() throws {
        let events = script.events(count: 5, initial: .ratio4x3, changes: [], completionDelay: 0)
        let (_, manifest) = try RecorderTestSupport.record(events, mode: .stopOnChange)
        #expect(manifest.stopReason == .endOfStream)
        #expect(manifest.segments.map(\.frameCount) == [5])
    }
}

@Suite("OutputDirectory")
struct OutputDirectoryTests {
    @Test func refusesToOverwriteWithoutForce() throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        try Data("{}".utf8).write(to: dir.appendingPathComponent("manifest.json"))
        try Data("x".utf8).write(to: dir.appendingPathComponent("segment-000.mp4"))
        try Data("keep".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        #expect(throws: RecordingError.outputExists(path: dir.path)) { try OutputDirectory(preparing: dir, force: false) }
        #expect(try String(contentsOf: dir.appendingPathComponent("segment-000.mp4"), encoding: .utf8) == "x")
        _ = try OutputDirectory(preparing: dir, force: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
    }

    @Test func segmentNames() {
        #expect(OutputDirectory.segmentFileName(0) == "segment-000.mp4")
        #expect(OutputDirectory.segmentFileName(42) == "segment-042.mp4")
        #expect(OutputDirectory.segmentFileName(1234) == "segment-1234.mp4")
    }
}
