import Foundation
import Synchronization
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// What the muxer does when the encoder is behind: in real time it never waits,
/// it drops the frame `late` (`isReadyForMoreMediaData == false`); otherwise it waits for a
/// free slot and drops nothing. The test holds the writer queue's slots itself, so "the
/// encoder is behind" is a fact, not a timing.
@Suite("Back-pressure and real time", .tags(.recording)) struct RealtimeBackPressureTests {
    let script = EventScript()

    private func makeMuxer(slots: FrameSlots, realtime: Bool) throws -> (URL, SegmentMuxer) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var configuration = SegmentMuxer.Configuration(
            output: try OutputDirectory(preparing: dir, force: false), settings: RecorderTestSupport.settings, policy: .split, devices: [EventScript.front],
            frameIndexStamp: true)
        configuration.framesInFlight = slots.capacity
        configuration.dropsFramesWhenBehind = realtime
        return (dir, SegmentMuxer(configuration, slots: slots))
    }

    /// Waits until the writers have given back every slot the muxer took (all queued
    /// pictures encoded): a condition, not a duration.
    private func waitUntilDrained(_ slots: FrameSlots) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while slots.available < slots.capacity {
            guard ContinuousClock.now < deadline else { throw RecordingError.invalidState("writer never drained") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// A full queue under real time: every frame that finds no free slot is dropped `late`,
    /// except a segment's first frame; the files hold exactly the frames taken, and
    /// received == written + dropped.
    @Test func fullQueueInRealTimeDropsLate() async throws {
        let slots = FrameSlots(capacity: 2)
        let (dir, muxer) = try makeMuxer(slots: slots, realtime: true)
        let events = script.events(count: 14, initial: .ratio9x16, changes: [(12, .ratio16x9)], completionDelay: 0)
        func frames(_ range: Range<Int64>) -> [CaptureOutputEvent] {
            events.filter { if case .frame(let f) = $0 { range.contains(f.index) } else { range.contains(12) } }
        }
        // The encoder is behind: both slots are taken.
        await slots.acquire()
        await slots.acquire()
        for event in frames(0..<10) { try await muxer.process(event.detached()) }  // 0 opens the segment; 1–9 find no slot
        slots.release()
        slots.release()
        for event in frames(10..<12) {
            try await waitUntilDrained(slots)
            try await muxer.process(event.detached())  // a free slot: taken
        }
        try await waitUntilDrained(slots)
        await slots.acquire()
        await slots.acquire()  // behind again, at the switch
        for event in frames(12..<14) { try await muxer.process(event.detached()) }  // 12 opens 16x9; 13 is dropped
        slots.release()
        slots.release()
        let manifest = try await muxer.finishReleasingLock()

        #expect(manifest.frames == FrameCounts(received: 14, written: 4, dropped: 10, droppedReasons: ["late": 10]))
        #expect(manifest.frames.received == manifest.frames.written + manifest.frames.dropped)
        #expect(manifest.segments.map(\.frameCount) == [3, 1])
        let first = dir.appendingPathComponent(manifest.segments[0].file)
        let second = dir.appendingPathComponent(manifest.segments[1].file)
        #expect(try RecorderTestSupport.stampedIndices(first) == [0, 10, 11])
        #expect(try RecorderTestSupport.stampedIndices(second) == [12])
        // The first segment ends where the second starts: a dropped frame leaves no hole.
        #expect(manifest.segments[0].sessionEnd == script.sessionTime(12))
        #expect(manifest.segments[1].sessionStart == script.sessionTime(12))
        if let (w, h, n) = try RecorderTestSupport.probe(first) { #expect((w, h, n) == (180, 320, 3)) }
        if let (w, h, n) = try RecorderTestSupport.probe(second) { #expect((w, h, n) == (320, 180, 1)) }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// Without real time the same full queue makes the muxer wait (nothing written while the
    /// slots are held), and once the encoder catches up every frame is written: none dropped.
    @Test func fullQueueWithoutRealTimeWaits() async throws {
        let slots = FrameSlots(capacity: 1)
        let (dir, muxer) = try makeMuxer(slots: slots, realtime: false)
        let events = script.events(count: 8, initial: .ratio9x16, changes: [(4, .ratio1x1)], completionDelay: 0)
        await slots.acquire()  // the encoder is behind
        let done = Mutex(false)
        let recording = Task {
            for event in events { try await muxer.process(event.detached()) }
            let manifest = try await muxer.finishReleasingLock()
            done.withLock { $0 = true }
            return manifest
        }
        // Frame 0 waits for the slot the test holds: the recording cannot end meanwhile.
        try await Task.sleep(for: .milliseconds(50))
        #expect(!done.withLock { $0 })
        slots.release()
        let manifest = try await recording.value
        #expect(manifest.frames == FrameCounts(received: 8, written: 8, dropped: 0, droppedReasons: [:]))
        #expect(manifest.segments.map(\.frameCount) == [4, 4])
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent(manifest.segments[0].file)) == [0, 1, 2, 3])
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent(manifest.segments[1].file)) == [4, 5, 6, 7])
        #expect(slots.available == 1)
    }
}
