import SegRecKit

/// `segrec formats`: the fake Center Stage front camera's formats and their aspect ratios.
enum FormatsCommand {
    static let options: [OptionSpec] = [.flag("help", help: "Show help.")]

    static func run(_ arguments: [String]) throws {
        let parsed = try ArgumentParser.parse(arguments, command: "formats", options: options)
        if parsed.flag("help") {
            print(ArgumentParser.helpText(usage: "segrec formats", abstract: "List the fake Center Stage front camera's formats (square sensor crops), their maximum frame rates and supported dynamic aspect ratios.", options: options))
            return
        }
        guard parsed.positionals.isEmpty else {
            throw CommandLineError("formats: unexpected argument '\(parsed.positionals[0])'", exitCode: .usage)
        }
        print(table())
    }

    static func table() -> String {
        var rows = [["format", "max fps", "smart framing", "aspect ratios (dimensions)"]]
        for format in CaptureDevice.Format.frontCenterStageFormats {
            let ratios = format.supportedDynamicAspectRatios.map { ratio in
                "\(ratio.rawValue) \(ratio.dimensions(squareSide: format.squareSide))"
            }.joined(separator: ", ")
            rows.append(["\(format.squareSide)x\(format.squareSide)", "\(format.maxFrameRate)",
                         format.isSmartFramingSupported ? "yes" : "no", ratios])
        }
        return TextTable.render(rows)
    }
}
