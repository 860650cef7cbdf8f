/// The frame-index stamp (Docs/clocks.md), which lets any decoder prove no frame was lost.
///
/// Rows 0–15 of the luma plane hold 32 blocks of width `W / 32` (integer division), bit 31
/// first; a 1-bit is luma 235, a 0-bit luma 16. Columns right of the 32nd block are set to
/// 16. A reader averages each block's middle half (rows 4–11, the middle half of its
/// columns) and thresholds at 128, which survives lossy encoding.
public enum FrameIndexStamp {
    /// Rows the stamp occupies.
    package static let rows = 16
    /// First row of the second code: the producing camera's position in `cameras`
    /// (several-camera sessions only; Docs/cameras.md).
    package static let cameraRow = 16
    /// Luma of a 1-bit and of a 0-bit.
    package static let oneLuma: UInt8 = 235, zeroLuma: UInt8 = 16

    /// Writes `index` into rows 0–15 of a luma plane (`bytesPerRow` bytes per row,
    /// at least 16 rows, width ≥ 32). One row is built, then copied.
    /// `firstRow` 16 writes the second code (rows 16–31: the producing camera's position).
    public static func write(_ index: UInt32, intoLuma luma: inout [UInt8], width: Int, bytesPerRow: Int, firstRow: Int = 0) {
        precondition(width >= 32 && luma.count >= bytesPerRow * (firstRow + rows), "stamp needs ≥ 32x16 pixels")
        let blockWidth = width / 32
        var row = [UInt8](repeating: zeroLuma, count: width)
        for bit in 0..<32 where (index >> UInt32(31 - bit)) & 1 == 1 {
            let start = bit * blockWidth
            row.replaceSubrange(start..<(start + blockWidth), with: repeatElement(oneLuma, count: blockWidth))
        }
        luma.withUnsafeMutableBufferPointer { plane in
            row.withUnsafeBufferPointer { source in
                for y in 0..<rows {
                    UnsafeMutableRawPointer(plane.baseAddress! + (firstRow + y) * bytesPerRow).copyMemory(from: source.baseAddress!, byteCount: width)
                }
            }
        }
    }

    /// Reads the index back from a (possibly decoded, lossy) luma plane.
    /// - Parameters: `luma` points at row 0; `bytesPerRow` may exceed `width` (decoder padding).
    /// - Returns: the 32-bit index; `nil` when the picture is smaller than 32x16 pixels.
    ///   `firstRow` 16 reads the second code (rows 16–31).
    package static func read(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bytesPerRow: Int, firstRow: Int = 0) -> UInt32? {
        guard width >= 32, height >= firstRow + rows, luma.count >= bytesPerRow * (firstRow + rows - 1) + width else { return nil }
        let blockWidth = width / 32
        let firstColumn = blockWidth / 4
        let columnCount = max(1, blockWidth / 2)
        var value: UInt32 = 0
        for bit in 0..<32 {
            var sum = 0
            let start = bit * blockWidth + firstColumn
            for y in (firstRow + 4)..<(firstRow + 12) {
                let rowStart = y * bytesPerRow + start
                for x in rowStart..<(rowStart + columnCount) { sum += Int(luma[x]) }
            }
            let mean = sum / (8 * columnCount)
            value = (value << 1) | (mean >= 128 ? 1 : 0)
        }
        return value
    }

    /// Convenience over `read(luma:width:height:bytesPerRow:firstRow:)` for an NV12 ``PixelBuffer``.
    public static func read(_ buffer: PixelBuffer, firstRow: Int = 0) -> UInt32? {
        buffer.lumaPlane.withUnsafeBufferPointer {
            read(luma: $0, width: buffer.width, height: buffer.height, bytesPerRow: buffer.lumaBytesPerRow, firstRow: firstRow)
        }
    }
}
