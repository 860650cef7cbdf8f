import Foundation
import SegRecKit

/// `segrec formats`: the fake Center Stage front camera's formats and their aspect ratios;
/// with `--camera ID`, one camera's formats (the iPhone Duo cameras, the Virtual Front
/// Camera, or a camera of `--scenario FILE`).
enum FormatsCommand {
    static let options: [OptionSpec] = [
        .option(
            "camera", "ID",
            help: "List this camera's formats: front, outer, inner, back, virtualFront, earlierFront (builtInWideAngleCamera), or a camera id of --scenario."),
        .option("scenario", "FILE", help: "A scenario with cameras whose ids --camera names."),
        .option(
            "format", "F",
            help:
                "With --camera: check that the camera has this format (1920 or 1920x1920 for a square format, WxH for the back camera's fixed formats) and list only it."
        ), .option("fps", "RATE", help: "With --format: check that the format delivers this rate (e.g. 120 or 30000/1001)."), .flag("help", help: "Show help.")
    ]

    /// The cameras `--camera` knows without a scenario.
    static let builtInCameras: [(id: String, type: CaptureDevice.DeviceType)] = [
        ("front", .builtInUltraWideCamera), ("outer", .builtInOuterUltraWideCamera), ("inner", .builtInInnerUltraWideCamera), ("back", .builtInDualWideCamera),
        (Scenario.virtualFrontID, .builtInVirtualFrontCamera), ("earlierFront", .builtInWideAngleCamera)
    ]

    static func run(_ arguments: [String]) throws {
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "formats", options: options, usage: "segrec formats [--camera ID [--scenario FILE] [--format F [--fps RATE]]]",
                abstract:
                    "List the fake Center Stage front camera's formats (square sensor crops), their maximum frame rates and supported dynamic aspect ratios; with --camera, one iPhone Duo camera's."
            )
        else { return }
        guard parsed.positionals.isEmpty else { throw CommandLineError("formats: unexpected argument '\(parsed.positionals[0])'", exitCode: .usage) }
        guard let id = parsed.value("camera") else {
            for name in ["scenario", "format", "fps"] where parsed.value(name) != nil {
                throw CommandLineError("formats: --\(name) needs --camera ID", exitCode: .usage)
            }
            print(table())
            print(stabilizationLine(.builtInUltraWideCamera, formats: CaptureDevice.Format.frontCenterStageFormats))
            print("Center Stage: formats up to 1920x1920; centerStageControlMode user (default), app or cooperative")
            return
        }
        let cameras = try knownCameras(parsed)
        guard let type = cameras.first(where: { $0.id == id })?.type else {
            throw CommandLineError(
                "formats: --camera: no camera '\(Excerpt.of(id))'; allowed: \(cameras.map(\.id).joined(separator: ", "))", exitCode: .dataError)
        }
        var formats = type.formats
        if let name = parsed.value("format") {
            let virtualLimit =
                "; the Virtual Front Camera offers only what the outer and inner cameras share (1280, 1920 at up to 60 fps): use individual cameras (\"frontCamera\": \"individual\") for more"
            guard let format = formats.first(where: { $0.name == name || squareName(of: $0) == name }) else {
                let note = type == .builtInVirtualFrontCamera ? virtualLimit : ""
                throw CommandLineError(
                    "formats: --format: camera \(id) (\(type.rawValue)) has no format '\(Excerpt.of(name))'; allowed: \(formats.map(\.name).joined(separator: ", "))\(note)",
                    exitCode: .dataError)
            }
            if let text = parsed.value("fps") {
                let rate: FrameRate
                do { rate = try FrameRate(parsing: text) } catch {
                    throw CommandLineError(
                        "formats: --fps: '\(Excerpt.of(text))' is not a positive number or rational such as 30 or 30000/1001", exitCode: .usage)
                }
                guard format.supports(frameRate: rate) else {
                    let note = type == .builtInVirtualFrontCamera ? virtualLimit : ""
                    throw CommandLineError(
                        "formats: --fps: format \(name) of camera \(id) delivers at most \(format.maxFrameRate) fps, not \(rate); allowed: 1...\(format.maxFrameRate)\(note)",
                        exitCode: .dataError)
                }
            }
            formats = [format]
        } else if parsed.value("fps") != nil {
            throw CommandLineError("formats: --fps needs --format", exitCode: .usage)
        }
        print("camera \(id): \(type.rawValue), position \(type.position.rawValue)")
        print(table(formats))
        if formats.allSatisfy({ $0.supportedDynamicAspectRatios.isEmpty }) {
            // What an app's fallback path reads: the active format's supportedDynamicAspectRatios.
            print("dynamic aspect ratios: none (supportedDynamicAspectRatios is empty: setDynamicAspectRatio fails, frames keep the format's fixed size)")
        }
        print(stabilizationLine(type, formats: formats))
    }

    /// The cameras of `--scenario` (plus `virtualFront` in virtual mode), else the built-in list.
    static func knownCameras(_ parsed: ParsedArguments) throws -> [(id: String, type: CaptureDevice.DeviceType)] {
        guard let path = parsed.value("scenario") else { return builtInCameras }
        let scenario = try RecordCommand.loadScenario(path)
        guard let cameras = scenario.cameras else { return [("front", scenario.device.type)] }
        return cameras.map { ($0.id, $0.type) } + (scenario.frontCamera == .virtual ? [(Scenario.virtualFrontID, .builtInVirtualFrontCamera)] : [])
    }

    /// `1280x1280` for a square format (no fixed dimensions), the form the table prints;
    /// `--format` accepts it as well as the side alone (`1280`). Nil for a fixed-size format.
    static func squareName(of format: CaptureDevice.Format) -> String? { format.fixedDimensions == nil ? "\(format.squareSide)x\(format.squareSide)" : nil }

    static func table(_ formats: [CaptureDevice.Format] = CaptureDevice.Format.frontCenterStageFormats) -> String {
        var rows = [["format", "max fps", "smart framing", "Center Stage", "aspect ratios (dimensions)"]]
        for format in formats {
            let ratios =
                format.fixedDimensions.map { "fixed \($0) (no dynamic aspect ratio)" }
                ?? format.supportedDynamicAspectRatios.map { ratio in "\(ratio.rawValue) \(ratio.dimensions(squareSide: format.squareSide))" }.joined(
                    separator: ", ")
            rows.append([
                squareName(of: format) ?? format.name, "\(format.maxFrameRate)", format.isSmartFramingSupported ? "yes" : "no",
                format.fixedDimensions == nil && format.squareSide <= CenterStageControl.largestCenterStageSquareSide ? "yes" : "no", ratios
            ])
        }
        return TextTable.render(rows)
    }

    /// `stabilization modes: off, standard, …` for a camera of `type` with its default change
    /// latency each; a mode that only some of `formats` support names them (`lowLatency` only
    /// on the Center Stage formats, 1280 and 1920 of the front cameras).
    static func stabilizationLine(_ type: CaptureDevice.DeviceType, formats: [CaptureDevice.Format]) -> String {
        let traitsType = type == .builtInVirtualFrontCamera ? CaptureDevice.DeviceType.builtInOuterUltraWideCamera : type
        let modes = (try? VideoStabilizationMode.supportedModes(deviceType: traitsType.rawValue)) ?? []
        let entries = modes.compactMap { mode -> String? in
            let with = formats.filter { CaptureDevice.supportedVideoStabilizationModes(deviceType: type, format: $0).contains(mode) }
            guard !with.isEmpty else { return nil }
            let only = with.count == formats.count ? "" : "; " + with.map { squareName(of: $0) ?? $0.name }.joined(separator: ", ") + " only"
            return "\(mode.rawValue) (\(mode.defaultChangeLatencyFrames)\(only))"
        }
        return "stabilization modes (default changeLatencyFrames): " + entries.joined(separator: ", ")
    }
}
