/// A scenario that cannot be used, naming the file, the key and what is allowed, e.g.
/// `tap.json: events[2].setDynamicAspectRatio: "5x4" is not a dynamic aspect ratio; allowed: 3x4, 4x3, 9x16, 16x9, 1x1`.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The scenario file (path as given) or built-in name.
    public let file: String
    /// The key path, e.g. `device.clock.timescale` or `events[2].setDynamicAspectRatio`;
    /// `(root)` for the document itself.
    public let key: String
    /// What is wrong.
    public let problem: String
    /// What is allowed instead.
    public let allowed: String

    /// Creates an error.
    public init(file: String, key: String, problem: String, allowed: String) {
        self.file = file
        // Echoed values are already excerpts; this keeps the line short whatever the caller passed.
        self.key = key.isEmpty ? "(root)" : Excerpt.of(key, limit: 120)
        self.problem = Excerpt.of(problem, limit: 300)
        self.allowed = allowed
    }

    /// `file: key: problem; allowed: allowed`.
    public var description: String { "\(file): \(key): \(problem); allowed: \(allowed)" }
}
