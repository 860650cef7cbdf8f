/// The analog of `AVCaptureSmartFramingMonitor` (iOS 26), available on the 4032 photo
/// format only (``CaptureDevice/smartFramingMonitor``).
///
/// Instead of face and gaze detection it is driven by a "people in frame" count, with a
/// deterministic model:
///
/// | people in frame | recommendation                 |
/// |-----------------|--------------------------------|
/// | 0               | none (the last one stands)     |
/// | 1               | 3x4 narrow (zoom 1.3)          |
/// | 2               | 3x4 wide (zoom 1.0)            |
/// | 3 or more       | 4x3 wide (zoom 1.0)            |
///
/// A recommendation is published only while monitoring and only if it is one of
/// ``enabledFramings`` (empty by default: no recommendations, as on iOS). The seeds call
/// them *periodic*: every detection publishes one, so while people move (a people count
/// seen again) the same framing is recommended again; the app may apply or ignore each
/// (``SmartFramingPolicy``). Apply one by setting the device's dynamic aspect ratio first,
/// then its zoom factor.
///
/// Concurrency: a non-`Sendable` class owned by its ``CaptureDevice`` and used from the
/// same single task.
package final class SmartFramingMonitor {
    /// Every framing the monitor can recommend on its format (`supportedFramings`):
    /// 3x4 and 4x3, each wide (1.0) and narrow (1.3).
    package let supportedFramings: [CaptureFraming]
    /// The framings recommendations are limited to (`enabledFramings`); empty by default.
    package private(set) var enabledFramings: [CaptureFraming] = []
    /// Whether the app set ``enabledFramings`` (even to none): `start()` then leaves them.
    package private(set) var areEnabledFramingsChosen = false
    /// The latest recommendation (`recommendedFraming`); `nil` before the first.
    package private(set) var recommendedFraming: CaptureFraming?
    /// Whether ``startMonitoring()`` was called (and not stopped since).
    package private(set) var isMonitoring = false

    /// A monitor for `format`. Only created for formats with smart framing.
    init(format: CaptureDevice.Format) {
        supportedFramings = [.wide3x4, .narrow3x4, .wide4x3, .narrow4x3].filter { format.supportedDynamicAspectRatios.contains($0.aspectRatio) }
    }

    /// Limits recommendations to `framings`.
    /// - Throws: ``CaptureError/unsupportedFraming(_:)`` for a framing not in
    ///   ``supportedFramings``.
    package func setEnabledFramings(_ framings: [CaptureFraming]) throws(CaptureError) {
        if let bad = framings.first(where: { !supportedFramings.contains($0) }) { throw .unsupportedFraming(bad) }
        enabledFramings = framings
        areEnabledFramingsChosen = true
    }

    /// Limits recommendations to the framings spelled `names` (``CaptureFraming/name``:
    /// `wide3x4`, `narrow3x4`, `wide4x3`, `narrow4x3`), as a scenario's `enabledFramings`
    /// gives them; an empty list means no recommendations until framings are enabled.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` for a name that is
    ///   no framing, ``CameraControlError/unsupportedFraming(_:supported:)`` for one this
    ///   format does not support; both name the supported framings. Nothing changes then.
    package func setEnabledFramings(named names: [String]) throws(CameraControlError) {
        let supportedNames = supportedFramings.map(\.name)
        var framings: [CaptureFraming] = []
        for name in names {
            let framing = try CaptureFraming(named: name, allowed: supportedNames)
            guard supportedFramings.contains(framing) else { throw .unsupportedFraming(framing, supported: supportedFramings) }
            if !framings.contains(framing) { framings.append(framing) }
        }
        enabledFramings = framings
        areEnabledFramingsChosen = true
    }

    /// What the seeds' `start()` does before it starts the monitor:
    /// `monitor.enabledFramings = monitor.supportedFramings`, unless the app already chose
    /// them (a scenario's `enabledFramings`, `[]` included: then none is enabled and the
    /// monitor recommends nothing).
    func enableSupportedFramingsUnlessChosen() {
        guard !areEnabledFramingsChosen else { return }
        enabledFramings = supportedFramings
        areEnabledFramingsChosen = true
    }

    /// Starts producing recommendations (may be called while the session runs).
    package func startMonitoring() { isMonitoring = true }

    /// Stops producing recommendations; the last one stays in ``recommendedFraming``.
    package func stopMonitoring() { isMonitoring = false }

    /// A scenario's `{"smartFraming": "start" | "stop"}` event.
    package enum Action: String, Sendable, Hashable, CaseIterable {
        /// ``startMonitoring()``.
        case start
        /// ``stopMonitoring()``.
        case stop

        /// The action spelled `name`.
        /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` naming `start, stop`.
        package init(named name: String) throws(CameraControlError) { self = try CameraControlError.spelled(name, name: "smartFraming") }
    }

    /// Starts or stops monitoring mid-session.
    /// - Returns: whether ``isMonitoring`` changed (starting a running monitor does nothing).
    @discardableResult package func perform(_ action: Action) -> Bool {
        let wanted = action == .start
        defer { isMonitoring = wanted }
        return wanted != isMonitoring
    }

    /// The model's framing for `count` people (table above); `nil` for 0.
    package static func framing(forPeopleInFrame count: Int) -> CaptureFraming? {
        switch count {
        case ...0: return nil
        case 1: return .narrow3x4
        case 2: return .wide3x4
        default: return .wide4x3
        }
    }

    /// Feeds the detector's people count (one detection).
    /// - Returns: the recommendation published for it (it is then also
    ///   ``recommendedFraming``; the same framing again when nothing changed), else `nil`.
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` for a negative count.
    @discardableResult package func observe(peopleInFrame count: Int) throws(CaptureError) -> CaptureFraming? {
        guard count >= 0 else { throw .invalidParameter(name: "peopleInFrame", value: "\(count)", allowed: "≥ 0") }
        guard isMonitoring, let framing = Self.framing(forPeopleInFrame: count), enabledFramings.contains(framing) else { return nil }
        recommendedFraming = framing
        return framing
    }
}
