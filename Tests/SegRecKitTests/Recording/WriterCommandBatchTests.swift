import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// When the muxer hands a copied stream's held-back appends to the writer
/// (``WriterCommandBatch``): with a segment's first command, at ``WriterCommandBatch/maximumPictures``
/// pictures, or once the batch spans ``WriterCommandBatch/maximumSpan`` of file time; what it
/// hands over is every command held, in order.
@Suite("Recording: batches of a copied stream's appends", .tags(.recording)) struct WriterCommandBatchTests {
    /// Adds picture `index` at `milliseconds` of file time; whether the batch is then due.
    static func addPicture(_ batch: WriterCommandBatch, _ index: Int64, at milliseconds: Int64) -> Bool {
        let time = MediaTime(value: milliseconds, timescale: 1000)
        return batch.add(
            .append(.pixelBuffer(PixelBuffer(width: 16, height: 16)), presentationTime: time, frameIndex: index, delivered: .now, queued: .now), at: time)
    }

    /// The frame index of each command handed over (-1 for sound).
    static func indices(_ batch: WriterCommandBatch) -> [Int64] { batch.take().map { if case .append(_, _, let index, _, _) = $0 { index } else { -1 } } }

    @Test func firstCommandAtOnceThenEveryFourPictures() {
        let batch = WriterCommandBatch(maximumPictures: 4, maximumSpan: MediaTime(value: 10, timescale: 1))
        let first = Self.addPicture(batch, 0, at: 0)
        #expect(first)
        #expect(Self.indices(batch) == [0])
        // Each time the batch is due it is handed over, as the muxer does.
        var handedOver: [[Int64]] = []
        for index in Int64(1)...9 where Self.addPicture(batch, index, at: index * 33) { handedOver.append(Self.indices(batch)) }
        #expect(handedOver == [[1, 2, 3, 4], [5, 6, 7, 8]])
        // Sound in between holds no slot: it does not count as a picture.
        let afterSound = batch.add(.appendSilence(1024), at: MediaTime(value: 330, timescale: 1000))
        #expect(!afterSound)
        #expect(Self.indices(batch) == [9, -1])
        #expect(Self.indices(batch).isEmpty)
    }

    @Test func aQuarterSecondSpanHandsOver() {
        let batch = WriterCommandBatch(maximumPictures: 8, maximumSpan: MediaTime(value: 1, timescale: 4))
        _ = Self.addPicture(batch, 0, at: 0)
        _ = batch.take()
        // The first picture held is at 0.1 s: the batch is due at 0.35 s, not at 0.349 s.
        let due = [(1, 100), (2, 200), (3, 349), (4, 350)].map { Self.addPicture(batch, Int64($0.0), at: Int64($0.1)) }
        #expect(due == [false, false, false, true])
        #expect(Self.indices(batch) == [1, 2, 3, 4])
    }
}
