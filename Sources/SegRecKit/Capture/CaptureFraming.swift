/// A framing the smart framing monitor can recommend: an aspect ratio and a zoom factor
/// (`AVCaptureFraming`). Apply it with `setDynamicAspectRatio` first, then the zoom.
package struct CaptureFraming: Sendable, Hashable, CustomStringConvertible {
    /// The dynamic aspect ratio to crop to.
    package let aspectRatio: DynamicAspectRatio
    /// The video zoom factor to apply after the ratio (1.0 = wide, no zoom).
    package let zoomFactor: Double

    /// Creates a framing.
    package init(aspectRatio: DynamicAspectRatio, zoomFactor: Double) {
        self.aspectRatio = aspectRatio
        self.zoomFactor = zoomFactor
    }

    /// Zoom factor of a narrow framing (one person, closer crop).
    package static let narrowZoomFactor = 1.3
    /// Zoom factor of a wide framing.
    package static let wideZoomFactor = 1.0

    /// Portrait 3x4, zoomed in (zoom 1.3): one person.
    package static let narrow3x4 = CaptureFraming(aspectRatio: .ratio3x4, zoomFactor: narrowZoomFactor)
    /// Portrait 3x4, wide (zoom 1.0): two people.
    package static let wide3x4 = CaptureFraming(aspectRatio: .ratio3x4, zoomFactor: wideZoomFactor)
    /// Landscape 4x3, zoomed in (zoom 1.3).
    package static let narrow4x3 = CaptureFraming(aspectRatio: .ratio4x3, zoomFactor: narrowZoomFactor)
    /// Landscape 4x3, wide (zoom 1.0): three or more people.
    package static let wide4x3 = CaptureFraming(aspectRatio: .ratio4x3, zoomFactor: wideZoomFactor)

    /// `"3x4 @ 1.3x"`.
    package var description: String { "\(aspectRatio.rawValue) @ \(zoomFactor)x" }
}
