import CFFmpeg

/// segrec's version and the names it tags its files with.
public enum SegRecVersion {
    /// The version `segrec --version` prints.
    public static let version = "0.1.0"

    /// `Lavf59.27.100`: the linked libavformat's version, as FFmpeg's `LIBAVFORMAT_IDENT`.
    package static var libavformatIdent: String { "Lavf" + dotted(avformat_version()) }
    /// `Lavc59.37.100`: the linked libavcodec's version, as FFmpeg's `LIBAVCODEC_IDENT`.
    package static var libavcodecIdent: String { "Lavc" + dotted(avcodec_version()) }

    private static func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
}
