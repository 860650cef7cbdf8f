/// The scenario keys of the app's views on iPhone Duo's two displays (`views`,
/// `drivingView`, events `moveView` and `drivingView`; Docs/cameras.md, "Two displays").
extension Scenario {
    /// Keys allowed in each `views[i]`.
    package static let viewKeys = ["id", "display"]
    /// Keys allowed in a `moveView` event's object.
    package static let moveViewKeys = ["id", "display"]

    /// The views as the session takes them, nil without `views`: open unless
    /// `initialPosture` is `closed`, driven by `drivingView` (default the first view).
    package var appViews: AppViews? {
        guard let views, !views.isEmpty else { return nil }
        let driving = drivingView.flatMap { id in views.firstIndex { $0.id == id } } ?? 0
        return AppViews(views: views, driving: driving, isOpen: initialPosture != .closed)
    }

    /// `views`, `drivingView` and the view events: 1 or 2 views with unique ids, a driving view
    /// among them, `initialPosture` and `posture` events only `closed` or `open` (a view's
    /// display says which display the app is on), `moveView`/`drivingView` naming a view,
    /// and none of these without `views`.
    /// - Throws: ``ScenarioError`` naming the key.
    func validateViews(file: String) throws(ScenarioError) {
        func fail(_ key: String, _ problem: String, _ allowed: String) -> ScenarioError {
            ScenarioError(file: file, key: key, problem: problem, allowed: allowed)
        }
        guard let views else {
            if drivingView != nil { throw fail("drivingView", "is given without views", "drivingView only with \"views\"") }
            for (i, event) in events.enumerated() {
                switch event.action {
                case .moveView, .drivingView:
                    throw fail("events[\(i)].\(event.action.key)", "needs the app's views", "moveView and drivingView events only with \"views\"")
                default: continue
                }
            }
            return
        }
        guard (1...2).contains(views.count) else { throw fail("views", "has \(views.count) views", "one or two views (one per display)") }
        guard discovery == nil else { throw fail("views", "is given with discovery", "either \"views\" or \"discovery\"") }
        var ids: Set<String> = []
        for (i, view) in views.enumerated() where view.id.isEmpty || !ids.insert(view.id).inserted {
            throw fail("views[\(i)].id", "\"\(Excerpt.of(view.id))\" is empty or used twice", "a unique non-empty id")
        }
        let allowedIDs = views.map(\.id).joined(separator: ", ")
        if let id = drivingView, !ids.contains(id) { throw fail("drivingView", "\"\(Excerpt.of(id))\" is no view", allowedIDs) }
        let foldOnly = "closed or open: with views, each view's display says which display the app is on (moveView events move them)"
        if initialPosture == .openOuterDisplay { throw fail("initialPosture", "openOuterDisplay is a view on the outer display", foldOnly) }
        for (i, event) in events.enumerated() {
            let key = "events[\(i)].\(event.action.key)"
            switch event.action {
            case .posture(.openOuterDisplay): throw fail(key, "openOuterDisplay is a view on the outer display", foldOnly)
            case .moveView(let id, _) where !ids.contains(id): throw fail(key, "\"\(Excerpt.of(id))\" is no view", allowedIDs)
            case .drivingView(let id) where !ids.contains(id): throw fail(key, "\"\(Excerpt.of(id))\" is no view", allowedIDs)
            default: continue
            }
        }
    }
}

extension ScenarioReader {
    /// `views`: an array of `{"id": …, "display": "inner" | "outer"}`.
    func views(_ value: JSONValue, at path: String) throws(ScenarioError) -> [AppViews.View] {
        guard case .array(let items) = value else { throw error(path, "expected an array, got \(value.rendered)", "an array of {\"id\", \"display\"} objects") }
        var views: [AppViews.View] = []
        for (i, item) in items.enumerated() { views.append(try view(item, at: "\(path)[\(i)]", keys: Scenario.viewKeys)) }
        return views
    }

    /// One `{"id": …, "display": …}` object (a view, or a `moveView` event's value).
    func view(_ value: JSONValue, at path: String, keys: [String]) throws(ScenarioError) -> AppViews.View {
        let fields = try object(value, at: path, allowed: keys)
        guard let idValue = fields["id"] else { throw error("\(path).id", "is missing", "a view id") }
        guard let displayValue = fields["display"] else { throw error("\(path).display", "is missing", AppViews.Display.allowedValues) }
        return AppViews.View(
            id: try string(idValue, at: "\(path).id", allowed: "a view id"), display: try named(displayValue, at: "\(path).display", "a display"))
    }
}
