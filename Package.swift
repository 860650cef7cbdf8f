// swift-tools-version:6.0
// segrec: records timestamped raw video frames into MP4 segments, one per run of
// constant frame dimensions. See README.md and Docs/.
//
// Layers, each depending only on the ones above it (Docs/architecture.md):
//   SegRecTime         exact time and clocks (MediaTime, convertTime); no dependencies
//   SegRecMedia        pictures and FFmpeg: the only target that imports CFFmpeg
//   SegRecKit          capture model, scenarios, recording, export, report
//   SegRecCommandLine  the `segrec` command's parser and commands
//   segrec             main
import PackageDescription

let package = Package(
    name: "segrec",
    products: [
        .library(name: "SegRecKit", targets: ["SegRecKit"]), .executable(name: "segrec", targets: ["segrec"]),
        .executable(name: "embedding-example", targets: ["EmbeddingExample"])
    ],
    targets: [
        // Debian's FFmpeg 5.1 (libavformat, libavcodec, libswscale, libavutil, libswresample) plus a tiny
        // header of inline functions for the macros Swift cannot import (AVERROR(EAGAIN), ...).
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat libavcodec libswscale libavutil libswresample",
            providers: [.apt(["libavformat-dev", "libavdevice-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev", "libswresample-dev"])]),
        // The av_log callback: formats a va_list line in C and hands it to Swift.
        .target(name: "CSegRecLog", dependencies: ["CFFmpeg"]), .target(name: "SegRecTime"),
        .target(name: "SegRecMedia", dependencies: ["SegRecTime", "CFFmpeg", "CSegRecLog"]),
        .target(name: "SegRecKit", dependencies: ["SegRecTime", "SegRecMedia"]),
        // The `segrec` command's parser and commands, as a library so tests can drive them.
        .target(name: "SegRecCommandLine", dependencies: ["SegRecKit"]), .executableTarget(name: "segrec", dependencies: ["SegRecCommandLine", "SegRecKit"]),
        // An app-like program that embeds SegRecKit, not the command line (Examples/).
        .executableTarget(name: "EmbeddingExample", dependencies: ["SegRecKit"], path: "Examples/EmbeddingExample"),
        .testTarget(name: "SegRecKitTests", dependencies: ["SegRecTime", "SegRecMedia", "SegRecKit", "SegRecCommandLine"])
    ], swiftLanguageModes: [.v6])
