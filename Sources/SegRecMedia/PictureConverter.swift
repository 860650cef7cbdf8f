import CFFmpeg

/// Turns decoded `AVFrame`s of any pixel format FFmpeg decodes into even-sized NV12
/// pictures (or, with ``keepsYUV420P``, yuv420p ones for yuv420p input), and says what it
/// did.
///
/// - NV12 input stays in the decoder's buffers, referenced, not copied
///   (``DecodedFrameBuffer``, cropped to even dimensions by its size alone).
/// - With ``keepsYUV420P``, yuv420p input (most video files) is referenced the same way
///   and stays yuv420p: the encoder takes it as it is (no interleaving pass, no copy).
/// - A frame in such a format whose planes are not all in refcounted buffers (or when a
///   reference cannot be made) is copied plane by plane (`av_image_copy_plane`) into pool
///   planes.
/// - Anything else goes through libswscale with `SWS_BICUBIC | SWS_ACCURATE_RND |
///   SWS_FULL_CHR_H_INP`: chroma that must be subsampled (4:4:4, 4:2:2, RGB) is filtered,
///   not point-sampled; deeper samples are reduced to 8 bits; RGB becomes BT.601 video
///   range YCbCr; an alpha channel is composited over black (``ScaleContext``'s
///   `alphablend`) with a warning.
/// - Output planes carry ``PixelBuffer/planePadding``, which `sws_scale` writes into for
///   narrow pictures, and come from the pool.
/// - An odd width or height loses its last column or row (warning once per size).
///
/// Every change of input pixel format is reported once through `note`, naming the
/// conversion (``conversionNote(for:)``). Not thread-safe.
final class PictureConverter {
    /// Filter flags for every libswscale conversion.
    static let scaleFlags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP

    private let pixelBufferPool: PixelBufferPool
    /// Whether yuv420p pictures stay yuv420p (copied) instead of becoming NV12.
    let keepsYUV420P: Bool
    private let note: (String) -> Void
    private let warning: (String) -> Void
    private var scaler: (format: AVPixelFormat, dimensions: VideoDimensions, context: ScaleContext)?
    private var lastFormat: AVPixelFormat?
    private var announcedFormat: AVPixelFormat?
    private var croppedSizes: Set<VideoDimensions> = []
    /// The description of the last picture described (``describe(_:index:)``).
    private var lastDescription: PictureDescription?

    /// - Parameters:
    ///   - pixelBufferPool: where output planes come from.
    ///   - note: called with each conversion worth a manifest note.
    ///   - warning: called with each adjustment worth a manifest warning.
    ///   - keepsYUV420P: keep yuv420p pictures in their layout (default false: everything becomes NV12).
    init(pixelBufferPool: PixelBufferPool, keepsYUV420P: Bool = false, note: @escaping (String) -> Void, warning: @escaping (String) -> Void) {
        self.pixelBufferPool = pixelBufferPool
        self.keepsYUV420P = keepsYUV420P
        self.note = note
        self.warning = warning
    }

    /// `frame` (picture `index` of the stream) as NV12 (or yuv420p, see the type): its own
    /// buffers referenced (``FramePixels/decoded(_:)``), or converted into pool planes.
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` naming `path` for a
    ///   picture smaller than 2x2 or a pixel format libswscale cannot convert.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, index: Int64, path: String) throws(MediaInputError) -> sending FramePixels {
        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        let decoded = VideoDimensions(width: width, height: height)
        guard width >= 2, height >= 2 else {
            throw .badInput(
                path: path, field: "picture size",
                detail: "picture \(index) is \(decoded): too small; allowed: at least 2x2 (NV12 4:2:0 needs whole 2x2 blocks)")
        }
        let even = VideoDimensions(width: width & ~1, height: height & ~1)
        if even != decoded, croppedSizes.insert(decoded).inserted {
            warning("input pictures are \(decoded): cropped to \(even) (x264 needs an even width and height in 4:2:0)")
        }
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        if format != lastFormat {
            if let previous = lastFormat {
                note("input pixel format changed from \(Self.name(of: previous)) to \(Self.name(of: format)) at picture \(index)")
                note(conversionNote(for: format) + " (from picture \(index))")
            } else if format != announcedFormat {
                note(conversionNote(for: format))
            }
            if Self.hasAlpha(format) {
                warning(
                    "input pictures \(lastFormat == nil ? "" : "from \(index) ")have an alpha channel (\(Self.name(of: format))): composited over black; transparency is not kept"
                )
            }
            lastFormat = format
        }
        if format == AV_PIX_FMT_NV12 || (format == AV_PIX_FMT_YUV420P && keepsYUV420P) {
            // Out of memory for the references (or planes not refcounted): the planes are copied.
            if let referenced = DecodedFrameBuffer.referencing(frame, dimensions: even) { return .decoded(referenced) }
            return .pixelBuffer(
                PixelBuffer(copying: frame.pointee, dimensions: even, layout: format == AV_PIX_FMT_NV12 ? .nv12 : .yuv420p, pool: pixelBufferPool))
        }
        if scaler?.format != format || scaler?.dimensions != even {
            do {
                scaler = (
                    format, even,
                    try ScaleContext(
                        sourceWidth: even.width, sourceHeight: even.height, source: format, destinationWidth: even.width, destinationHeight: even.height,
                        destination: AV_PIX_FMT_NV12, flags: Self.scaleFlags, compositeAlphaOverBlack: Self.hasAlpha(format))
                )
            } catch {
                throw .badInput(path: path, field: "pixel format", detail: "libswscale cannot convert \(Self.name(of: format)) at \(even) to nv12: \(error)")
            }
        }
        let f = frame.pointee
        let planes: [UnsafePointer<UInt8>?] = [UnsafePointer(f.data.0), UnsafePointer(f.data.1), UnsafePointer(f.data.2), UnsafePointer(f.data.3)]
        let strides: [Int32] = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        do { return .pixelBuffer(try scaler!.context.scaleToNV12(sourcePlanes: planes, sourceStrides: strides, pixelBufferPool: pixelBufferPool)) } catch {
            throw .badInput(path: path, field: "pixel format", detail: "\(error)")
        }
    }

    /// What the samples of the picture ``convert(_:index:path:)`` makes of `frame` mean
    /// (``PictureDescription/of(_:format:dimensions:)``). The first description, and every
    /// change, is noted once, with the fields the input left unstated and that get what
    /// players assume for the size.
    func describe(_ frame: UnsafeMutablePointer<AVFrame>, index: Int64) -> PictureDescription {
        let dimensions = VideoDimensions(width: Int(frame.pointee.width) & ~1, height: Int(frame.pointee.height) & ~1)
        let (description, assumed) = PictureDescription.of(frame, format: AVPixelFormat(rawValue: frame.pointee.format), dimensions: dimensions)
        if description != lastDescription {
            let unstated = assumed.isEmpty ? "" : " (the input states no \(assumed.joined(separator: ", ")): what players assume for \(dimensions))"
            note(
                lastDescription == nil
                    ? "input colour \(description)\(unstated): tagged on the segments"
                    : "input colour changed to \(description)\(unstated) at picture \(index): tagged on the segments from its frame on")
            lastDescription = description
        }
        return description
    }

    /// Names the conversion of the stream's stated pixel format before any picture is
    /// decoded (so that it is among the decoder's opening notes); the first picture then
    /// notes only a different format.
    func announce(_ format: AVPixelFormat) {
        guard format != AV_PIX_FMT_NONE, announcedFormat == nil else { return }
        announcedFormat = format
        note(conversionNote(for: format))
    }

    /// ``conversionNote(for:)``, or, for yuv420p kept as it is, the sentence saying so.
    private func conversionNote(for format: AVPixelFormat) -> String {
        format == AV_PIX_FMT_YUV420P && keepsYUV420P
            ? "input pixel format yuv420p (8-bit YUV 4:2:0): recorded as decoded, no conversion" : Self.conversionNote(for: format)
    }

    /// `av_get_pix_fmt_name`, or the number.
    static func name(of format: AVPixelFormat) -> String { av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "pixel format \(format.rawValue)" }

    /// Whether `format` has an alpha channel (`AV_PIX_FMT_FLAG_ALPHA`).
    static func hasAlpha(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA)) != 0
    }

    /// One sentence naming the conversion of `format` to NV12: its layout, sample depth,
    /// chroma subsampling and what changes (e.g. `"input pixel format yuv444p (8-bit YUV
    /// 4:4:4) converted to nv12 (8-bit YUV 4:2:0): chroma downsampled 2:1 horizontally and
    /// vertically with libswscale's bicubic filter"`).
    static func conversionNote(for format: AVPixelFormat) -> String {
        let name = name(of: format)
        guard let descriptor = av_pix_fmt_desc_get(format) else { return "input pixel format \(name) converted to nv12 (8-bit YUV 4:2:0) by libswscale" }
        let d = descriptor.pointee
        let depth = Int(d.comp.0.depth)
        let isRGB = (d.flags & UInt64(AV_PIX_FMT_FLAG_RGB)) != 0
        let alpha = (d.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA)) != 0
        let colourComponents = Int(d.nb_components) - (alpha ? 1 : 0)
        let isPalette = (d.flags & UInt64(AV_PIX_FMT_FLAG_PAL)) != 0
        let isGray = !isRGB && !isPalette && colourComponents == 1
        let (shiftW, shiftH) = (Int(d.log2_chroma_w), Int(d.log2_chroma_h))
        let sampling: String
        if isRGB || isPalette {
            sampling = isPalette ? "palette" : "RGB"
        } else if isGray {
            sampling = "gray"
        } else {
            switch (shiftW, shiftH) {
            case (0, 0): sampling = "YUV 4:4:4"
            case (1, 0): sampling = "YUV 4:2:2"
            case (1, 1): sampling = "YUV 4:2:0"
            case (2, 0): sampling = "YUV 4:1:1"
            case (0, 1): sampling = "YUV 4:4:0"
            default: sampling = "YUV, chroma 1/\(1 << shiftW) x 1/\(1 << shiftH)"
            }
        }
        var changes: [String] = []
        if format == AV_PIX_FMT_NV12 { return "input pixel format nv12 (8-bit YUV 4:2:0): recorded as decoded, no conversion" }
        if isPalette {
            changes.append("palette colours converted to BT.601 video-range YCbCr, chroma filtered to 4:2:0 (bicubic)")
        } else if isRGB {
            changes.append("RGB converted to BT.601 video-range YCbCr, chroma filtered to 4:2:0 (bicubic)")
        } else if isGray {
            changes.append("luma kept, neutral chroma added")
        } else if shiftW == 1 && shiftH == 1 {
            changes.append("same 4:2:0 chroma samples, planes interleaved")
        } else {
            let horizontal = shiftW < 1 ? "downsampled 2:1 horizontally" : (shiftW > 1 ? "upsampled \(1 << (shiftW - 1))x horizontally" : nil)
            let vertical =
                shiftH < 1 ? (shiftW < 1 ? "2:1 vertically" : "downsampled 2:1 vertically") : (shiftH > 1 ? "upsampled \(1 << (shiftH - 1))x vertically" : nil)
            let parts = [horizontal, vertical].compactMap { $0 }
            changes.append("chroma \(parts.joined(separator: " and ")) with libswscale's bicubic filter")
        }
        if depth > 8 { changes.append("samples reduced from \(depth) to 8 bits") }
        if depth < 8 { changes.append("samples expanded from \(depth) to 8 bits") }
        if alpha { changes.append("alpha composited over black") }
        let range = name.hasPrefix("yuvj") ? "; full range converted to video range" : ""
        return "input pixel format \(name) (\(depth)-bit \(sampling)\(alpha ? " + alpha" : "")) converted to nv12 (8-bit YUV 4:2:0): "
            + changes.joined(separator: "; ") + range
    }
}
