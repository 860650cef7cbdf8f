import Foundation

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The failure cases of `../shared/cases/` (beside the repository) and small inputs the
/// tests write themselves (YUV4MPEG2, raw video).
enum CasesTestSupport {
    /// `<repo>/../shared/cases`, from this file's path.
    static let cases: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/cases")

    static var casesPresent: Bool { FileManager.default.fileExists(atPath: cases.appendingPathComponent("README.md").path) }

    static var ready: Bool { casesPresent && FootageTestSupport.tool("ffmpeg") != nil && FootageTestSupport.tool("ffprobe") != nil }

    static func file(_ name: String) -> URL { cases.appendingPathComponent(name) }

    /// Y4M colour tags and plane layout: (tag, chroma shift x, chroma shift y, bytes per sample, has chroma).
    static let y4mLayouts: [String: (tag: String, shiftX: Int, shiftY: Int, bytes: Int, chroma: Bool)] = [
        "gray": ("mono", 0, 0, 1, false), "yuv420p": ("420jpeg", 1, 1, 1, true), "yuv422p": ("422", 1, 0, 1, true), "yuv444p": ("444", 0, 0, 1, true),
        "yuv420p10le": ("420p10", 1, 1, 2, true)
    ]

    /// One YUV4MPEG2 frame's planes: luma `luma(x, y)`, chroma planes `cb(x, y)` / `cr(x, y)`
    /// (in chroma sample coordinates), little-endian 16-bit for 10-bit formats.
    static func y4mFrame(
        width: Int, height: Int, format: String, luma: (Int, Int) -> Int, cb: (Int, Int) -> Int = { _, _ in 128 }, cr: (Int, Int) -> Int = { _, _ in 128 }
    ) -> [UInt8] {
        let layout = y4mLayouts[format]!
        var bytes: [UInt8] = []
        func put(_ value: Int) {
            if layout.bytes == 2 {
                let v = value * 4
                bytes += [UInt8(v & 0xff), UInt8(v >> 8)]
            } else {
                bytes.append(UInt8(value))
            }
        }
        for y in 0..<height { for x in 0..<width { put(luma(x, y)) } }
        if layout.chroma {
            let cw = (width + (1 << layout.shiftX) - 1) >> layout.shiftX
            let ch = (height + (1 << layout.shiftY) - 1) >> layout.shiftY
            for y in 0..<ch { for x in 0..<cw { put(cb(x, y)) } }
            for y in 0..<ch { for x in 0..<cw { put(cr(x, y)) } }
        }
        return bytes
    }

    /// Writes a YUV4MPEG2 file of `frames` frames made by `frame(i)`.
    static func writeY4M(to url: URL, width: Int, height: Int, format: String, frames: Int, frame: (Int) -> [UInt8]) throws {
        var data = Data("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C\(y4mLayouts[format]!.tag)\n".utf8)
        for i in 0..<frames {
            data.append(contentsOf: Array("FRAME\n".utf8))
            data.append(contentsOf: frame(i))
        }
        try data.write(to: url)
    }

    /// Each segment's `[width, height, frameCount]`.
    static func shapes(_ manifest: RecordingManifest?) -> [[Int]] { (manifest?.segments ?? []).map { [$0.width, $0.height, $0.frameCount] } }

    /// `ffmpeg -i file -frames:v 1 -f rawvideo -pix_fmt yuv420p -`: the first picture's planes.
    static func firstPictureYUV420P(_ file: URL) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FootageTestSupport.tool("ffmpeg")!)
        process.arguments = ["-v", "error", "-i", file.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }
}
