import Foundation
import SegRecKit

/// The parsed options and positional arguments of one command.
public struct ParsedArguments: Sendable {
    /// Option name → value (the last one given wins).
    public var values: [String: String] = [:]
    /// Flags that were given.
    public var flags: Set<String> = []
    /// Arguments that are not options, in order.
    public var positionals: [String] = []

    /// The value of `--name`, if given.
    public func value(_ name: String) -> String? { values[name] }
    /// Every value given to a repeatable option, in order (`--camera-source a=x --camera-source b=y`).
    public var repeatedValues: [String: [String]] = [:]
    /// The values of a repeatable option, in the order given (empty when absent).
    public func values(_ name: String) -> [String] { repeatedValues[name] ?? [] }

    /// Whether `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A small parser with swift-argument-parser's conventions (no outside package can be
/// fetched here): `--name value` and `--name=value`, flags, `--` ends options, `-` alone is
/// a positional (standard input). Unknown options, missing values and values outside an
/// option's allowed set are usage errors (exit 64) that list what is allowed.
public enum ArgumentParser {
    /// Parses `arguments` (without the program and command names) against `options`.
    /// - Throws: ``CommandLineError`` with ``ExitCode/usage``.
    public static func parse(_ arguments: [String], command: String, options: [OptionSpec]) throws(CommandLineError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw usage("\(command): unknown option '\(Excerpt.of(argument))'; options are long (--name); allowed: \(names(options))")
            }
            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw usage("\(command): unknown option '--\(Excerpt.of(name))'; allowed: \(names(options))")
            }
            if spec.isFlag {
                guard inlineValue == nil else { throw usage("\(command): --\(name) takes no value") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw usage("\(command): --\(name) needs a value (\(spec.valueName ?? "VALUE"))") }
                value = arguments[index]
                index += 1
            }
            if let allowed = spec.allowedValues, !allowed.contains(value) {
                throw usage("\(command): --\(name): '\(Excerpt.of(value))' is not allowed; allowed: \(allowed.joined(separator: ", "))")
            }
            parsed.values[name] = value
            parsed.repeatedValues[name, default: []].append(value)
        }
        return parsed
    }

    /// A command's arguments as ``parse(_:command:options:)`` reads them, or nil after
    /// printing its ``helpText(usage:abstract:options:)`` for `--help` (a flag of `options`).
    static func parse(_ arguments: [String], command: String, options: [OptionSpec], usage: String, abstract: String) throws(CommandLineError)
        -> ParsedArguments?
    {
        let parsed = try parse(arguments, command: command, options: options)
        guard parsed.flag("help") else { return parsed }
        print(helpText(usage: usage, abstract: abstract, options: options))
        return nil
    }

    /// `--scenario, --mode, …`
    static func names(_ options: [OptionSpec]) -> String { options.map { "--\($0.name)" }.joined(separator: ", ") }

    /// Help text listing every option, with placeholders and allowed values.
    public static func helpText(usage: String, abstract: String, options: [OptionSpec]) -> String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: \(usage)", "", "OPTIONS:"]
        for option in options {
            let left = "  --\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
            var help = option.help
            if let allowed = option.allowedValues { help += " (values: \(allowed.joined(separator: ", ")))" }
            let padding = max(2, 34 - left.count)
            lines.append(left + String(repeating: " ", count: padding) + help)
        }
        return lines.joined(separator: "\n")
    }

    static func usage(_ message: String) -> CommandLineError { CommandLineError(message, exitCode: .usage) }

    /// Parses an integer option value in `range`.
    /// - Throws: a usage error naming the option and the range.
    public static func integer(_ text: String, option: String, in range: ClosedRange<Int>) throws(CommandLineError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw usage("--\(option): '\(Excerpt.of(text))' is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }
}

extension ParsedArguments {
    /// The one positional argument of `command` as an existing folder.
    /// - Throws: a usage error (64) for no or several positionals, a "no such folder" (66).
    func existingFolder(command: String) throws -> URL {
        guard positionals.count == 1 else { throw CommandLineError("\(command): expected one recording folder, got \(positionals.count)", exitCode: .usage) }
        let directory = URL(fileURLWithPath: positionals[0])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw CommandLineError("\(directory.path): no such folder", exitCode: .noInput)
        }
        guard isDirectory.boolValue else { throw CommandLineError("\(directory.path): not a folder; \(command) takes a recording folder", exitCode: .noInput) }
        return directory
    }
}
