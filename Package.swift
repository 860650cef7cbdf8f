// swift-tools-version:6.0
// segrec: records timestamped raw video frames into MP4 segments, one per run of
// constant frame dimensions. See README.md and ../shared/DESIGN.md.
import PackageDescription

let package = Package(
    name: "segrec",
    products: [
        .library(name: "SegRecKit", targets: ["SegRecKit"]),
        .executable(name: "segrec", targets: ["segrec"]),
    ],
    targets: [
        // Debian's FFmpeg 5.1 (libavformat, libavcodec, libswscale, libavutil) plus a tiny
        // C shim for the macros Swift cannot import (AVERROR(EAGAIN), AVERROR_EOF, ...).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libswscale libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        .target(
            name: "SegRecKit",
            dependencies: ["CFFmpeg"]
        ),
        // The `segrec` command's parser and commands, as a library so tests can drive them.
        .target(
            name: "SegRecCommandLine",
            dependencies: ["SegRecKit"]
        ),
        .executableTarget(
            name: "segrec",
            dependencies: ["SegRecCommandLine", "SegRecKit"]
        ),
        .testTarget(
            name: "SegRecKitTests",
            dependencies: ["SegRecKit", "SegRecCommandLine"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
