import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Each capture angle written as a segment's display matrix reads back, in ffprobe and in
/// our own reader, as `rotation = −angle` (FFmpeg's range): 0 → none/0, 90 → −90,
/// 180 → −180, 270 → 90; per writer, so consecutive segments may carry different angles.
@Suite("Media: display rotation per capture angle", .tags(.media), .serialized) struct SegmentWriterDisplayRotationTests {
    typealias M = MediaTestSupport

    /// ffprobe's `rotation` of the first video stream's display matrix, nil without one.
    private func ffprobeRotation(_ url: URL) throws -> Int?? {
        guard let json = try M.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation"], file: url) else {
            return nil
        }
        let stream = (json["streams"] as? [[String: Any]])?.first
        #expect(stream?["width"] as? Int == 320 && stream?["height"] as? Int == 240)  // stored size, never turned
        return .some((stream?["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first)
    }

    @Test("ffprobe shows rotation = −angle for every capture angle, fragmented or not", arguments: VideoRotationAngle.allCases, [true, false]) func everyAngle(
        _ angle: VideoRotationAngle, fragmented: Bool
    ) throws {
        let url = try M.makeTemporaryDirectory().appendingPathComponent("segment-\(angle.degrees).mp4")
        let writer = try SegmentWriter(
            url: url, dimensions: VideoDimensions(width: 320, height: 240), timescale: 30, settings: EncoderSettings(preset: "ultrafast"),
            displayRotationDegrees: angle.displayMatrixRotationDegrees, fragmentInterval: fragmented ? MediaTime(value: 1, timescale: 1) : nil)
        for i in 0..<4 { try writer.append(M.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTime(value: Int64(i), timescale: 30)) }
        let summary = try writer.finish(endTime: MediaTime(value: 4, timescale: 30))
        #expect(summary.frameCount == 4)
        let expected: Int? = [VideoRotationAngle.degrees0: nil, .degrees90: -90, .degrees180: -180, .degrees270: 90][angle]!
        // The mov demuxer exports no display matrix for the identity: "no rotation".
        #expect(try MediaFileReader(url: url).streamInfo().rotationDegrees == expected)
        if let probed = try ffprobeRotation(url) {
            #expect(probed == expected, "ffprobe rotation \(String(describing: probed)) for angle \(angle)")
            #expect(VideoRotationAngle(displayMatrixRotation: probed ?? 0) == angle)
        }
    }

    @Test("consecutive segments carry their own angle (a change applies from the next segment)") func perSegment() throws {
        let folder = try M.makeTemporaryDirectory()
        let angles: [VideoRotationAngle] = [.degrees0, .degrees90, .degrees270, .degrees180]
        for (k, angle) in angles.enumerated() {
            try M.writeSegment(
                to: folder.appendingPathComponent("segment-00\(k).mp4"), width: 320, height: 240, pts: [0, 33_333_333, 66_666_667], end: 100_000_000,
                settings: EncoderSettings(preset: "ultrafast"), rotation: angle.displayMatrixRotationDegrees)
        }
        let read = try angles.indices.map { try MediaFileReader(url: folder.appendingPathComponent("segment-00\($0).mp4")).streamInfo().rotationDegrees }
        #expect(read == [nil, -90, 90, -180])
        for k in angles.indices { if let probed = try ffprobeRotation(folder.appendingPathComponent("segment-00\(k).mp4")) { #expect(probed == read[k]) } }
    }
}
