extension PixelBuffer {
    /// Flips the picture left-right in place (luma pixels and NV12 Cb/Cr pairs), as a
    /// mirrored `AVCaptureConnection` delivers it. Padding bytes past `width` are untouched.
    package mutating func mirrorHorizontally() {
        let width = self.width
        let height = self.height
        let lumaStride = lumaBytesPerRow
        let chromaStride = chromaBytesPerRow
        lumaPlane.withUnsafeMutableBufferPointer { plane in
            for y in 0..<height {
                var left = y * lumaStride
                var right = left + width - 1
                while left < right {
                    plane.swapAt(left, right)
                    left += 1
                    right -= 1
                }
            }
        }
        let pairs = width / 2
        chromaPlane.withUnsafeMutableBufferPointer { plane in
            for y in 0..<(height / 2) {
                let row = y * chromaStride
                var left = 0
                var right = pairs - 1
                while left < right {
                    plane.swapAt(row + 2 * left, row + 2 * right)
                    plane.swapAt(row + 2 * left + 1, row + 2 * right + 1)
                    left += 1
                    right -= 1
                }
            }
        }
    }
}
