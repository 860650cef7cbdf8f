/// The app's views on iPhone Duo's two displays (the Duo seed, "Use both displays at once"):
/// each view sits on the inner or the outer display and has its own direction coordinator,
/// which reports each camera's facing relative to that view; the app chooses which view's
/// coordinator drives the recording (which camera streams, its facing and mirroring).
///
/// A view's coordinator sees the posture its display gives it: `closed` while the phone is
/// closed (the inner display is folded away, so every view shows on the outer one), `open`
/// on the inner display of the open phone, `openOuterDisplay` on its outer display.
package struct AppViews: Sendable, Hashable {
    /// A display of iPhone Duo.
    package enum Display: String, Sendable, Hashable, CaseIterable {
        /// The inner, under-display camera's side (seen when the phone is open).
        case inner
        /// The outer display (the only one seen when the phone is closed).
        case outer

        /// The spellings a scenario may use.
        package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    /// One view (`UIView`) of the app: its id and the display it is on.
    package struct View: Sendable, Hashable {
        /// The scenario's view id.
        package var id: String
        /// The display it is on.
        package var display: Display

        /// A view; see the properties.
        package init(id: String, display: Display) {
            self.id = id
            self.display = display
        }
    }

    /// The views, in the scenario's order (one or two).
    package var views: [View]
    /// The position in ``views`` of the view whose coordinator drives the recording.
    package var driving: Int
    /// Whether the phone is open (a `posture` event `open`) or closed (`closed`).
    package var isOpen: Bool

    /// Views; see the properties.
    package init(views: [View], driving: Int, isOpen: Bool) {
        self.views = views
        self.driving = driving
        self.isOpen = isOpen
    }

    /// The posture view `index`'s direction coordinator sees.
    package func posture(ofView index: Int) -> DevicePosture {
        guard isOpen else { return .closed }
        return views[index].display == .inner ? .open : .openOuterDisplay
    }

    /// The posture of the view that drives the recording.
    package var drivingPosture: DevicePosture { posture(ofView: driving) }

    /// The position of the view with `id`, nil when there is none.
    package func index(of id: String) -> Int? { views.firstIndex { $0.id == id } }
}
