import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `segrec verify` compares each file's display matrix (ffprobe `rotation`, counter-
/// clockwise) with the manifest's `rotationDegrees` (clockwise): a manifest edited to
/// another angle, or to none, no longer passes.
@Suite("Orientation: verify compares the display matrix with rotationDegrees", .tags(.cameras)) struct VerifyRotationTests {
    typealias F = OrientationFixtures

    /// (ffprobe rotation or nil, manifest rotationDegrees or nil, agree?)
    @Test(
        "the rule: −file ≡ manifest (mod 360); no matrix and 0 are the same",
        arguments: [
            (nil, nil, true), (nil, 0, true), (0, nil, true), (-90, 90, true), (90, 270, true), (-180, 180, true), (180, 180, true), (-270, 270, true),
            (-270, 90, false), (-90, nil, false), (nil, 90, false), (-90, 270, false), (90, 90, false)
        ] as [(Int?, Int?, Bool)]) func rule(_ file: Int?, _ manifest: Int?, _ agree: Bool)
    {
        let problem = RecordingVerifier.rotationProblem(file: file, manifest: manifest)
        #expect((problem == nil) == agree, "\(String(describing: problem))")
        if let problem { #expect(problem.contains("rotationDegrees")) }
    }

    /// Square front camera in landscapeLeft: angle 90, the file's matrix reads −90.
    @Test(
        "a recording passes; its manifest edited to 270 or null fails naming rotationDegrees",
        arguments: [
            ("270", "display matrix rotation -90 (clockwise 90°), manifest rotationDegrees says 270"),
            ("null", "display matrix rotation -90 (clockwise 90°), manifest rotationDegrees says null")
        ]) func editedManifest(_ edited: String, _ message: String) async throws
    {
        let json = """
            {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16"},
             "initialDeviceOrientation": "landscapeLeft", "durationSeconds": 0.1}
            """
        let (dir, m) = try await F.record(try F.scenario(json))
        #expect(m.segments.map(\.rotationDegrees) == [90])
        #expect(try RecordingVerifier.verify(dir).passed)
        let url = dir.appendingPathComponent("manifest.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        let pattern = try Regex(#""rotationDegrees"\s*:\s*90"#)
        #expect(text.contains(pattern))
        try text.replacing(pattern, with: "\"rotationDegrees\" : \(edited)").write(to: url, atomically: true, encoding: .utf8)
        let report = try RecordingVerifier.verify(dir)
        #expect(!report.passed)
        #expect(report.segments[0].problems == [message])
    }
}
