import CFFmpeg
import Foundation
import Testing

@testable import SegRecMedia

@Suite("Media: FileAVIOContext starts the writeback of a file made durable at its end", .tags(.media, .crashSafety)) struct MediaFileAVIOContextWritebackTests {
    /// 1 MiB written through libavformat (`avio_write`, 64 KiB buffer) with a writeback
    /// started every 256 KiB: four starts, one per 256 KiB written, and the file reads back
    /// byte for byte; without the setting, none.
    @Test(arguments: [Int64(256 << 10), nil]) func writebackStartsEveryChunk(every: Int64?) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("copy.mp4").path
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let file = try FileAVIOContext(creating: path)
        file.startsWritebackEvery = every
        let pointer = try #require(file.pointer)
        bytes.withUnsafeBufferPointer { avio_write(pointer, $0.baseAddress, Int32($0.count)) }
        #expect(file.sync() == nil)
        #expect(file.close() == nil)
        #expect(file.writebacksStarted == (every == nil ? 0 : 4))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
}
