/// Where a picture goes on a fixed-size canvas so that it fits whole with its displayed
/// shape kept: scaled by one factor until it touches two opposite sides of the canvas, and
/// centred; the rest of the canvas is black padding (letterbox bars above and below, or
/// pillarbox bars left and right). The rule of FFmpeg's
/// `scale=W:H:force_original_aspect_ratio=decrease,pad=W:H:(ow-iw)/2:(oh-ih)/2`, in even
/// pixels for 4:2:0 pictures.
package struct CanvasPlacement: Sendable, Hashable, CustomStringConvertible {
    /// The canvas, in pixels (even, positive).
    package let canvas: VideoDimensions
    /// The size the picture is scaled to, in pixels (even, at least 2x2, inside the canvas).
    package let size: VideoDimensions
    /// The picture's top-left corner on the canvas, in pixels (even).
    package let x: Int, y: Int

    /// The placement of a picture displayed `displayWidth` : `displayHeight` (any positive
    /// integers in proportion, e.g. coded width × pixel aspect width : coded height × pixel
    /// aspect height) on `canvas`. The fitted side is rounded to the nearest even number
    /// (half up); the offsets are half the padding, rounded down to even.
    /// Precondition: positive display sides; an even, positive canvas.
    package init(displayWidth: Int64, displayHeight: Int64, canvas: VideoDimensions) {
        precondition(displayWidth > 0 && displayHeight > 0, "display size \(displayWidth):\(displayHeight)")
        precondition(canvas.width >= 2 && canvas.height >= 2 && canvas.width % 2 == 0 && canvas.height % 2 == 0, "canvas \(canvas)")
        let cw = Int128(canvas.width)
        let ch = Int128(canvas.height)
        let dw = Int128(displayWidth)
        let dh = Int128(displayHeight)
        /// `numerator / denominator` to the nearest even integer (half up), within 2...limit.
        func even(_ numerator: Int128, _ denominator: Int128, limit: Int) -> Int {
            let halves = (numerator + denominator) / (2 * denominator)
            return max(2, min(limit, Int(halves) * 2))
        }
        let width: Int
        let height: Int
        if cw * dh <= ch * dw {
            // As wide as the canvas (or exactly its shape): bars above and below.
            width = canvas.width
            height = even(cw * dh, dw, limit: canvas.height)
        } else {
            height = canvas.height
            width = even(ch * dw, dh, limit: canvas.width)
        }
        self.canvas = canvas
        self.size = VideoDimensions(width: width, height: height)
        self.x = ((canvas.width - width) / 2) & ~1
        self.y = ((canvas.height - height) / 2) & ~1
    }

    /// Whether the picture fills the canvas (no padding).
    package var fillsCanvas: Bool { size == canvas }

    /// `1080x1920 at (0, 656) on 1080x3232`.
    package var description: String { "\(size) at (\(x), \(y)) on \(canvas)" }
}
