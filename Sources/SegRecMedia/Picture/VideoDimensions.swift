/// Frame dimensions in pixels.
public struct VideoDimensions: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    /// Dimensions in pixels (width x height).
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `1920x1080`.
    public var description: String { "\(width)x\(height)" }
}
