import Testing

@testable import SegRecKit
@testable import SegRecTime

@Suite("Recording: the writer queue of footage paced in real time", .tags(.recording)) struct RealtimeFootageQueueTests {
    @Test(
        "half a second of frames, rounded up, at least the default 6 and at most 240",
        arguments: [(Int64(30), Int64(1), 15), (60, 1, 30), (24, 1, 12), (30000, 1001, 15), (5, 1, 6), (25, 1, 13), (1000, 1, 240), (50, 2, 13)])
    func halfASecond(_ numerator: Int64, _ denominator: Int64, _ expected: Int) throws {
        let rate = try FrameRate(numerator, denominator)
        #expect(SegmentMuxer.realtimeFootageFramesInFlight(frameRate: rate) == expected)
    }
}
