import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The push input's door: many producers and the recorder's one consumer, in any
/// interleaving. Every item arrives once, each producer's in its order, nothing waits forever.
@Suite("Recording: the push channel", .tags(.recording)) struct PushChannelTests {
    /// Producer `p`'s item `i`, told apart by its time.
    static func item(_ p: Int, _ i: Int) -> PushChannel.Item { .finishCurrentSegment(MediaTime(value: Int64(p * 1_000_000 + i), timescale: 1)) }

    static func tag(_ item: PushChannel.Item) -> (producer: Int, index: Int)? {
        guard case .finishCurrentSegment(let time) = item else { return nil }
        return (Int(time.value / 1_000_000), Int(time.value % 1_000_000))
    }

    @Test("8 producers x 500 items through a channel of 2: all arrive once, each producer's in order", .timeLimit(.minutes(3))) func manyProducers()
        async throws
    {
        let channel = PushChannel(capacity: 2)
        let (producers, count) = (8, 500)  // the limit is a hang bound: a loaded 2-core machine ran 16 000 items past a minute
        let consumer = Task {
            var next = [Int](repeating: 0, count: producers)
            var inOrder = true
            var total = 0
            while let item = await channel.take() {
                guard let (p, i) = Self.tag(item) else { continue }
                if i != next[p] { inOrder = false }
                next[p] = i + 1
                total += 1
            }
            return (total, inOrder, next)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for p in 0..<producers { group.addTask { for i in 0..<count { try await channel.send(Self.item(p, i)) } } }
            try await group.waitForAll()
        }
        channel.close()
        let (total, inOrder, next) = await consumer.value
        #expect(total == producers * count)
        #expect(inOrder)
        #expect(next == [Int](repeating: count, count: producers))
    }

    @Test("closing refuses producers still waiting and later ones; the consumer gets what was queued, then the end", .timeLimit(.minutes(1)))
    func closeRefusesWaitingProducers() async throws {
        let channel = PushChannel(capacity: 1)
        try await channel.send(Self.item(0, 0))  // queued
        let waiting = Task { try await channel.send(Self.item(0, 1)) }  // no room: waits
        try await Task.sleep(for: .milliseconds(50))
        channel.close(refusal: RecordingError.invalidState("stopped"))
        await #expect(throws: RecordingError.invalidState("stopped")) { try await waiting.value }
        await #expect(throws: RecordingError.invalidState("stopped")) { try await channel.send(Self.item(0, 2)) }
        let first = await channel.take()
        #expect(first.flatMap(Self.tag).map { [$0.producer, $0.index] } == [0, 0])
        #expect(await channel.take() == nil)
    }
}
