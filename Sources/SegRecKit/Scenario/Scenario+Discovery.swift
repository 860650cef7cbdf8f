/// Starting a recording from a discovery request (`discovery`) instead of naming its camera:
/// the app asks `CaptureDeviceDiscoverySession` for device types at a position and streams
/// from the first camera found (Docs/cameras.md, "iPhone Duo").
extension Scenario {
    /// `discovery`: the device types asked for, in order, and the mounting position (`nil`: any).
    package struct DiscoveryRequest: Sendable, Hashable {
        /// `AVCaptureDevice.DeviceType`s, in the app's order of preference.
        package var deviceTypes: [CaptureDevice.DeviceType]
        /// `.front`, `.back`, or nil for any position.
        package var position: CaptureDevice.Position?
    }

    /// Resolves ``discovery`` against the phone the scenario describes (its `cameras` and the
    /// Virtual Front Camera every iPhone Duo has) with ``CaptureDeviceDiscoverySession``: the
    /// Virtual Front Camera found makes ``frontCamera`` `virtual` (``virtual`` as given, or its
    /// defaults); an individual camera found makes it `individual`, starting in the first
    /// posture whose preferred camera it is (`closed` for outer, `open` for inner,
    /// `openOuterDisplay` for back), which an explicit `initialPosture` must agree with.
    /// ``discoveryNote`` says what was found. Does nothing without `discovery`, or when the
    /// cameras cannot be described yet (``validate(file:)`` names what is wrong).
    /// - Throws: ``ScenarioError`` naming `discovery` when nothing matches, `virtual` when it
    ///   is given but an individual camera is found, `initialPosture` when it selects another.
    mutating func resolveDiscovery(file: String, initialPostureGiven: Bool) throws(ScenarioError) {
        guard let request = discovery, let cameras, let physical = try? makeCameraDescriptors() else { return }
        let virtualSpec = virtual ?? VirtualCamera()
        guard let virtualFormat = CaptureDevice.Format.virtualFrontFormats.first(where: { $0.squareSide == virtualSpec.format }) else { return }
        let phone = CaptureDeviceDescriptor(
            uniqueID: Self.virtualFrontID, deviceType: .builtInVirtualFrontCamera, format: virtualFormat, frameRate: virtualSpec.fps, clock: .host,
            stampPosition: cameras.count)
        let asked = request.deviceTypes.map(\.rawValue).joined(separator: ", ") + " at " + (request.position?.rawValue ?? "any position")
        let found = CaptureDeviceDiscoverySession(deviceTypes: request.deviceTypes, position: request.position, available: physical + [phone]).devices
        guard let first = found.first else {
            throw ScenarioError(
                file: file, key: "discovery", problem: "finds no camera (\(asked))",
                allowed: "device types of this phone: "
                    + (physical + [phone]).map { "\($0.deviceType.rawValue) (\($0.position.rawValue))" }.joined(separator: ", ")
                    + "; builtInUltraWideCamera or builtInWideAngleCamera at front find the Virtual Front Camera")
        }
        let list = found.map(\.uniqueID).joined(separator: ", ")
        if first.deviceType == .builtInVirtualFrontCamera {
            frontCamera = .virtual
            virtual = virtualSpec
            discoveryNote = "discovery (\(asked)) found \(list): the recording streams from the first, the Virtual Front Camera"
            return
        }
        guard virtual == nil else {
            throw ScenarioError(
                file: file, key: "virtual",
                problem: "is given but the discovery (\(asked)) finds \(first.uniqueID) (\(first.deviceType.rawValue)), an individual camera",
                allowed: "\"virtual\" only when the discovery finds the Virtual Front Camera (builtInUltraWideCamera or builtInWideAngleCamera at front)")
        }
        let coordinator = DirectionCoordinator(monitoring: physical, posture: initialPosture)
        let postures = DevicePosture.allCases.filter { coordinator.preferredCamera(in: $0)?.uniqueID == first.uniqueID }
        guard let posture = postures.first else {
            throw ScenarioError(
                file: file, key: "discovery", problem: "finds \(first.uniqueID) (\(first.deviceType.rawValue)), which no posture streams from",
                allowed: "a camera the direction coordinator selects: outer (closed), inner (open), back (openOuterDisplay)")
        }
        if initialPostureGiven, !postures.contains(initialPosture) {
            throw ScenarioError(
                file: file, key: "initialPosture",
                problem:
                    "\(initialPosture.rawValue) streams from \(coordinator.preferredCamera(in: initialPosture)?.uniqueID ?? "no camera"), not \(first.uniqueID) the discovery finds",
                allowed: postures.map(\.rawValue).joined(separator: ", ") + " (or leave initialPosture out)")
        }
        frontCamera = .individual
        if !initialPostureGiven { initialPosture = posture }
        discoveryNote =
            "discovery (\(asked)) found \(list): the recording streams from the first, \(first.uniqueID), from posture \(initialPosture.rawValue) (individual cameras)"
    }
}
