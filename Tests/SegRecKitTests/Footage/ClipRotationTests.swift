import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The phone sample (1920x1080 stored, 90° display matrix) as the sensor image: turned
/// upright before cropping, it matches `ffmpeg`'s autorotated decoding of the same frames.
@Suite(
    "Footage: clip rotation applied to the sensor image", .tags(.footage), .serialized,
    .enabled(if: FootageTestSupport.ready, "../shared/samples/ or ffmpeg/ffprobe missing: clip rotation tests skipped")) struct ClipRotationTests
{
    typealias T = FootageTestSupport
    static let phone = "phone_portrait_rot90_1920x1080_30fps.mp4"

    /// Frame `index` of the sample as ffmpeg shows it (autorotate on, the default): NV12.
    private func ffmpegUpright(frame index: Int, crop: String? = nil) throws -> (luma: [UInt8], chroma: [UInt8], width: Int, height: Int) {
        let out = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("frame.nv12")
        var filters = "select=eq(n\\,\(index))"
        if let crop { filters += ",crop=\(crop)" }
        try T.ffmpeg(["-i", T.sample(Self.phone).path, "-vf", filters, "-frames:v", "1", "-pix_fmt", "nv12", "-f", "rawvideo", out.path])
        let data = try [UInt8](Data(contentsOf: out))
        let (w, h) = crop == nil ? (1080, 1920) : (1080, 1080)
        #expect(data.count == w * h * 3 / 2)
        return (Array(data[0..<(w * h)]), Array(data[(w * h)...]), w, h)
    }

    /// Mean absolute difference of the packed planes of `buffer` and `reference`.
    private func meanDifference(_ buffer: PixelBuffer, _ reference: (luma: [UInt8], chroma: [UInt8], width: Int, height: Int)) -> (luma: Double, chroma: Double)
    {
        var lumaSum = 0
        var chromaSum = 0
        for y in 0..<buffer.height {
            for x in 0..<buffer.width { lumaSum += abs(Int(buffer.lumaPlane[y * buffer.lumaBytesPerRow + x]) - Int(reference.luma[y * reference.width + x])) }
        }
        for y in 0..<(buffer.height / 2) {
            for x in 0..<buffer.width {
                chromaSum += abs(Int(buffer.chromaPlane[y * buffer.chromaBytesPerRow + x]) - Int(reference.chroma[y * reference.width + x]))
            }
        }
        return (Double(lumaSum) / Double(buffer.width * buffer.height), Double(chromaSum) / Double(buffer.width * buffer.height / 2))
    }

    @Test("a decoded picture turned by the clip's rotation is 1080x1920 and equals ffmpeg's autorotated frame") func turnedPicture() throws {
        let decoder = try VideoFileDecoder(path: T.sample(Self.phone).path)
        #expect(decoder.rotationDegrees == -90)
        let angle = try #require(decoder.rotationDegrees.flatMap(VideoRotationAngle.init(displayMatrixRotation:)))
        #expect(angle == .degrees90)
        let picture = try #require(try decoder.nextPicture()).pixelBuffer
        #expect(picture.dimensions == VideoDimensions(width: 1920, height: 1080))
        let upright = picture.rotated(angle, pixelBufferPool: PixelBufferPool())
        #expect(upright.dimensions == VideoDimensions(width: 1080, height: 1920))
        let reference = try ffmpegUpright(frame: 0)
        let difference = meanDifference(upright, reference)
        #expect(difference.luma == 0 && difference.chroma == 0, "mean abs difference \(difference)")
        // The wrong turn is far off: the comparison can fail.
        let wrong = meanDifference(picture.rotated(.degrees270, pixelBufferPool: PixelBufferPool()), reference)
        #expect(wrong.luma > 10, "a 270° turn differs by only \(wrong)")
    }

    @Test("DecodedClipSensor turns each picture upright before its centre square; reports the turn") func sensorImage() throws {
        let path = T.sample(Self.phone).path
        let sensor = try DecodedClipSensor(squareSide: 1080, canReopen: true, appliesDisplayRotation: true) { try VideoFileDecoder(path: path) }
        #expect(sensor.appliedRotation == .degrees90 && sensor.clipRotationDegrees == -90)
        let square = VideoDimensions(width: 1080, height: 1080)
        for index in 0...5 {
            let picture = try sensor.pixelBuffer(forFrame: Int64(index), dimensions: square)
            #expect(picture.dimensions == square)
            guard index == 0 || index == 5 else { continue }
            // ffmpeg: autorotated 1080x1920, centre square (rows 420..<1500).
            let difference = meanDifference(picture, try ffmpegUpright(frame: index, crop: "1080:1080:0:420"))
            #expect(difference.luma == 0 && difference.chroma == 0, "frame \(index): mean abs difference \(difference)")
        }
        // Without the option the pictures stay as stored (the square is the stored picture's centre).
        let plain = try DecodedClipSensor(squareSide: 1080, canReopen: true) { try VideoFileDecoder(path: path) }
        #expect(plain.appliedRotation == .degrees0 && plain.clipRotationDegrees == -90)
        let stored = try plain.pixelBuffer(forFrame: 0, dimensions: square)
        let upright = meanDifference(stored, try ffmpegUpright(frame: 0, crop: "1080:1080:0:420"))
        #expect(upright.luma > 10, "the stored picture should differ from the upright one, differs by \(upright)")
    }
}
