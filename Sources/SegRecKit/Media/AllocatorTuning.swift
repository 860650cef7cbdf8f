import CFFmpeg

/// Process-wide allocator settings for long recordings.
public enum AllocatorTuning {
    /// Fixes glibc's mmap threshold at its initial 128 KiB (`mallopt(M_MMAP_THRESHOLD)`).
    ///
    /// Left dynamic, glibc raises the threshold each time a large mmapped block is freed;
    /// after that, each segment's encoder buffers (several MiB, allocated anew per segment)
    /// come from the heap and fragment it, so peak RSS grows with the number of segment
    /// switches (measured 276 → 309 MiB from 10 s to 30 s of switching every second at
    /// 1920/60 fps; flat at ~160 MiB with the threshold fixed). Call once at startup.
    /// - Returns: true when glibc accepted the setting.
    @discardableResult
    public static func fixMmapThreshold(bytes: Int32 = 128 * 1024) -> Bool {
        segrec_fix_mmap_threshold(bytes) == 1
    }
}
