/// Finds cameras by type and mounting position: the analog of
/// `AVCaptureDevice.DiscoverySession(deviceTypes:mediaType:position:)` over the cameras a
/// scenario lists. It hands out ``CaptureDeviceDescriptor``s in the order of the request's
/// `deviceTypes` (then list order), as Apple's `devices` are ordered by the types asked for.
package struct CaptureDeviceDiscoverySession: Sendable {
    /// The cameras that match, in request order.
    package let devices: [CaptureDeviceDescriptor]

    /// Discovers, among `available`, the cameras of `deviceTypes` mounted at `position`
    /// (`nil`: any position).
    ///
    /// On an iPhone Duo, which has no single `builtInUltraWideCamera` or `builtInWideAngleCamera`
    /// front camera, asking for either type (the Wide or the Ultra Wide) at the `.front`
    /// position discovers the Virtual Front Camera (when `available` lists one), as the seeds
    /// say an app that streams "from the front camera" gets it; the individual
    /// cameras are found by their own types (`builtInOuterUltraWideCamera`,
    /// `builtInInnerUltraWideCamera`). Each camera is listed once.
    package init(deviceTypes: [CaptureDevice.DeviceType], position: CaptureDevice.Position?, available: [CaptureDeviceDescriptor]) {
        var found: [CaptureDeviceDescriptor] = []
        for type in deviceTypes {
            var matches = available.filter { $0.deviceType == type && (position == nil || $0.position == position) }
            if matches.isEmpty, type == .builtInUltraWideCamera || type == .builtInWideAngleCamera, position == .front {
                matches = available.filter { $0.deviceType == .builtInVirtualFrontCamera }
            }
            found += matches.filter { match in !found.contains { $0.uniqueID == match.uniqueID } }
        }
        devices = found
    }
}
