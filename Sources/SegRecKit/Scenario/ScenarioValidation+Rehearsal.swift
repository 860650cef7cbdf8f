extension Scenario {
    /// Runs the events through the session this scenario describes without pictures
    /// (``CaptureSession/rehearse()``: the session's own rules, so the camera streaming at an
    /// event, the format active then and the ratio in effect are the ones the recording will
    /// have), so an event the session would reject fails before anything is recorded.
    /// - Throws: ``ScenarioError`` naming `file`, `events[N].<action>` (N as in the file)
    ///   and what is allowed then: for `activeFormat`, the formats of the camera streaming
    ///   at that time, or those listing the ratio in effect; for `setDynamicAspectRatio`,
    ///   the ratios of the format in effect at its time.
    func rehearseEvents(file: String) throws(ScenarioError) {
        let failure: CaptureEventError
        // Construction failures are the recording's to report (they name their keys).
        guard let session = try? CaptureSession(scenario: self) else { return }
        do {
            try session.rehearse()
            return
        } catch { failure = error }
        let camera = session.device
        let ratio = session.ratioInEffect
        guard let position = failure.eventIndex else { return }
        let order = sessionEventOrder
        guard order.indices.contains(position) else { return }
        let i = order[position]
        let event = events[i]
        let key = "events[\(i)].\(event.action.key)"
        let when = "at \(event.atSeconds) s"
        let streaming = "camera \(camera.uniqueID) (\(camera.deviceType.rawValue)), streaming \(when)"
        if case .activeFormat(let name) = event.action {
            let names = camera.formats.map(\.name)
            guard names.contains(name) else {
                throw ScenarioError(
                    file: file, key: key, problem: "\(Self.echoFormat(name)) is not a format of \(streaming)",
                    allowed: "the formats of \(camera.uniqueID): " + names.joined(separator: ", "))
            }
            if let target = camera.formats.first(where: { $0.name == name }), target.fixedDimensions == nil,
                !target.supportedDynamicAspectRatios.contains(ratio)
            {
                let listing = camera.formats.filter { $0.supportedDynamicAspectRatios.contains(ratio) }.map(\.name)
                throw ScenarioError(
                    file: file, key: key, problem: "format \(name) does not list \(ratio.rawValue), the ratio in effect \(when) on \(camera.uniqueID)",
                    allowed: "a format listing \(ratio.rawValue): " + listing.joined(separator: ", "))
            }
        }
        if case .unsupportedRatio(let wanted, let side, let supported) = failure.error {
            throw ScenarioError(
                file: file, key: key, problem: "\(wanted.rawValue) is not supported by format \(side)",
                allowed: supported.map(\.rawValue).joined(separator: ", ") + " for format \(side)")
        }
        if case .invalidParameter(_, let value, let allowed) = failure.error {
            throw ScenarioError(file: file, key: key, problem: "\(Excerpt.of(value)) is rejected by \(streaming)", allowed: allowed)
        }
        throw ScenarioError(
            file: file, key: key, problem: "\(failure.error) (\(streaming))",
            allowed: "an event \(camera.uniqueID) accepts at that time (DESIGN.md, \"Orientation, formats and stabilization\")")
    }
}
