import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Helpers for the fragmented-file tests: box types read from bytes (tests only: the
/// media layer never parses or writes boxes), truncated copies, ffprobe packet counts.
enum FragmentTestSupport {
    /// One top-level box: its type, file offset and size.
    struct Box: Equatable {
        let type: String
        let offset: Int
        let size: Int
    }

    /// The top-level boxes of `data` (stops at a box running past the end).
    static func topLevelBoxes(_ data: Data) -> [Box] {
        var boxes: [Box] = []
        var offset = 0
        let bytes = [UInt8](data)
        while offset + 8 <= bytes.count {
            var size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= 8 else { break }
            boxes.append(Box(type: type, offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    static func topLevelBoxTypes(_ url: URL) throws -> [String] { topLevelBoxes(try Data(contentsOf: url)).map(\.type) }

    /// An ordinary MP4: `moov` before `mdat`, no `moof`.
    static func expectFaststart(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let types = try topLevelBoxTypes(url)
        #expect(!types.contains("moof"), "\(types)", sourceLocation: sourceLocation)
        let moov = types.firstIndex(of: "moov")
        let mdat = types.firstIndex(of: "mdat")
        #expect(moov != nil && mdat != nil && moov! < mdat!, "\(types)", sourceLocation: sourceLocation)
    }

    /// ffprobe's count of the video packets it can read (`-count_packets`), nil without ffprobe.
    static func ffprobePacketCount(_ url: URL) throws -> Int? {
        let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets"], file: url)
        let stream = (json?["streams"] as? [[String: Any]])?.first
        return (stream?["nb_read_packets"] as? String).flatMap { Int($0) }
    }

    /// The decoded frames' stamped indices, in presentation order.
    static func stamps(_ url: URL) throws -> [UInt32?] {
        var stamps: [UInt32?] = []
        try MediaFileReader(url: url).decodeFrames { stamps.append($0.stampedIndex) }
        return stamps
    }

    /// Appends stamped 320x240 frames `range` at `i * frameNanoseconds`.
    static func append(_ range: Range<Int>, to writer: SegmentWriter, frameNanoseconds: Int64 = 33_333_333) throws {
        for i in range {
            try writer.append(
                MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTestSupport.ns(Int64(i) * frameNanoseconds))
        }
    }
}
