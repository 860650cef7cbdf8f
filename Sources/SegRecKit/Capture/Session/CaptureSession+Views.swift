/// The app's views on iPhone Duo's two displays (``AppViews``): a coordinator per view, and
/// the view whose coordinator drives the recording (see ``CaptureSession/views``).
extension CaptureSession {
    /// Gives the session the app's views before it runs: one ``DirectionCoordinator`` per
    /// view, each at the posture its display gives it. The routing's initial posture must be
    /// the driving view's (``AppViews/drivingPosture``).
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` once the session runs,
    ///   on the one-camera routing, or when the routing's posture is not the driving view's.
    package func setViews(_ views: AppViews) throws(CaptureError) {
        guard !isRunning, let coordinator else {
            throw .invalidParameter(name: "views", value: views.views.map(\.id).joined(separator: ", "), allowed: "before the session runs, with cameras")
        }
        guard coordinator.posture == views.drivingPosture else {
            throw .invalidParameter(
                name: "views", value: "driving view posture \(views.drivingPosture.rawValue)", allowed: "the routing's posture \(coordinator.posture.rawValue)")
        }
        self.views = views
        viewCoordinators = views.views.indices.map { DirectionCoordinator(monitoring: cameras, posture: views.posture(ofView: $0)) }
    }

    /// Changes the views at host time `s` (`update`: the phone opened or closed, a view moved,
    /// another view drives): `viewMoved` and `drivingViewChanged` records; each view's
    /// coordinator follows its display, the views that do not drive logging
    /// `viewFacingChanged` for each camera whose facing relative to them changed; then the
    /// recording follows the driving view's posture as a posture event does
    /// (`postureChanged`, `facingChanged`, a camera switch or a constituent swap).
    func changeViews(at s: MediaTime, _ update: (inout AppViews) throws(CaptureError) -> Void) throws(CaptureError) {
        guard var views else { throw .invalidParameter(name: "views", value: "none", allowed: "moveView and drivingView events only with views") }
        let before = views
        try update(&views)
        self.views = views
        for (old, new) in zip(before.views, views.views) where old.display != new.display {
            outbox.append(.sessionEvent(.viewMoved(view: new.id, from: old.display, to: new.display, at: s)))
        }
        if before.driving != views.driving {
            outbox.append(.sessionEvent(.drivingViewChanged(from: before.views[before.driving].id, to: views.views[views.driving].id, at: s)))
        }
        for (index, coordinator) in viewCoordinators.enumerated() {
            let old = Dictionary(uniqueKeysWithValues: cameras.map { ($0.uniqueID, coordinator.facing(of: $0)) })
            guard let change = coordinator.update(posture: views.posture(ofView: index)), index != views.driving else { continue }
            let view = views.views[index]
            for (descriptor, facing) in change.facings where old[descriptor.uniqueID] != facing {
                outbox.append(
                    .sessionEvent(
                        .viewFacingChanged(view: view.id, display: view.display, camera: descriptor.uniqueID, from: old[descriptor.uniqueID], to: facing, at: s)
                    ))
            }
        }
        try changePosture(to: views.drivingPosture, at: s)
    }
}
