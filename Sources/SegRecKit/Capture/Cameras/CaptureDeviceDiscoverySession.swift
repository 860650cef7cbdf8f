/// Finds cameras by type and mounting position: the analog of
/// `AVCaptureDevice.DiscoverySession(deviceTypes:mediaType:position:)` over the cameras a
/// scenario lists. It hands out ``CaptureDeviceDescriptor``s in the order of the request's
/// `deviceTypes` (then list order), as Apple's `devices` are ordered by the types asked for.
public struct CaptureDeviceDiscoverySession: Sendable {
    /// The cameras that match, in request order.
    public let devices: [CaptureDeviceDescriptor]

    /// Discovers, among `available`, the cameras of `deviceTypes` mounted at `position`
    /// (`nil`: any position).
    public init(deviceTypes: [CaptureDevice.DeviceType], position: CaptureDevice.Position?, available: [CaptureDeviceDescriptor]) {
        devices = deviceTypes.flatMap { type in available.filter { $0.deviceType == type && (position == nil || $0.position == position) } }
    }
}
