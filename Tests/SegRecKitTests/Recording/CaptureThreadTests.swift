import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// The capture side of a recording that reads a file as fast as the encoder takes it runs
/// on one thread of its own (``ThreadExecutor``), so that what the source allocates (a
/// demuxer's packets) comes from one malloc arena.
@Suite("Recording: the capture thread", .tags(.recording)) struct CaptureThreadTests {
    /// The calling thread's name as the kernel has it (`/proc/thread-self/comm`: 15 bytes
    /// at most).
    static func threadName() -> String { ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines) }

    /// A scripted source that notes which thread each pull runs on.
    final class ThreadNotingSource: CaptureOutputEventSource {
        private var events: [CaptureOutputEvent]
        private(set) var threads: [pthread_t] = []
        private(set) var names: Set<String> = []
        init(_ events: [CaptureOutputEvent]) { self.events = events.reversed() }
        func next() throws -> sending CaptureOutputEvent? {
            threads.append(pthread_self())
            names.insert(CaptureThreadTests.threadName())
            return events.popLast()?.detached()
        }
        func stopRunning() { events.removeAll() }
    }

    /// With ``RecordingPipeline/readsOnOneThread``, 90 frames in three segments (the muxer
    /// waits for free writer slots and segment switches between pulls, so the capture task
    /// suspends and resumes many times): every pull runs on the one thread named
    /// `segrec.capture`.
    @Test func everyPullRunsOnTheCaptureThread() async throws {
        let script = EventScript()
        let events = script.events(count: 90, initial: .ratio16x9, changes: [(30, .ratio9x16), (60, .ratio4x3)], completionDelay: 2)
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .segment)
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let source = ThreadNotingSource(events)
        var pipeline = RecordingPipeline(source: source, muxer: muxer)
        pipeline.readsOnOneThread = true
        let manifest = try await pipeline.run()
        #expect(manifest.segments.map(\.frameCount) == [30, 30, 30])
        #expect(source.threads.count == events.count + 1)
        #expect(Set(source.threads.map { UInt($0) }).count == 1)
        #expect(source.names == ["segrec.capture"])
        #expect(source.threads.first.map { pthread_equal($0, pthread_self()) } == 0)
    }

    /// Jobs of several tasks that prefer the executor run on its one thread, named as
    /// asked.
    @Test func tasksPreferringTheExecutorShareItsThread() async throws {
        let executor = ThreadExecutor(name: "segrec.test")
        defer { executor.shutdown() }
        let seen = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask(executorPreference: executor) {
                    var seen: [String] = []
                    for _ in 0..<50 {
                        seen.append("\(UInt(pthread_self())) \(CaptureThreadTests.threadName())")
                        await Task.yield()
                    }
                    return seen
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(seen.count == 200)
        #expect(Set(seen).count == 1)
        #expect(seen.first?.hasSuffix(" segrec.test") == true)
    }
}
