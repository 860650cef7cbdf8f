/// One `--name` option of a command, in the manner of swift-argument-parser's `@Option`
/// (takes a value) and `@Flag` (takes none).
public struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `scenario`.
    public let name: String
    /// Placeholder shown in help (`FILE`); nil for a flag.
    public let valueName: String?
    /// One line of help.
    public let help: String
    /// The values accepted, when the set is closed (`segment`, `stop-on-change`).
    public let allowedValues: [String]?

    /// An option that takes a value: `--name value` or `--name=value`.
    public static func option(_ name: String, _ valueName: String, help: String, allowed: [String]? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, allowedValues: allowed)
    }

    /// A flag that takes no value: `--name`.
    public static func flag(_ name: String, help: String) -> OptionSpec { OptionSpec(name: name, valueName: nil, help: help, allowedValues: nil) }

    /// True for a flag.
    public var isFlag: Bool { valueName == nil }
}
